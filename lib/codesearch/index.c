/*
 * The code-search index: one SQLite database per CUTLASS version in the cache directory, with an
 * entries table (files, example programs, symbols with their snippets) and a contentless FTS5
 * table over their names, split words, paths, summaries and code. The run database is lib/store's;
 * this index is the only other SQLite file kernelpro writes (docs/internals/codesearch.md).
 */
#include "base/setup.h"

#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codesearch/cs_int.h"
#include "kernelpro/fs.h"
#include "kernelpro/log.h"
#include "kernelpro/str.h"

#define SCHEMA_VERSION       "1"
#define FILE_CAP             (4u << 20) /* bigger sources are not read */
#define MAX_FILES            50000
#define MAX_SYMBOLS_PER_FILE 4000
#define DOC_LINES_KEPT       8 /* of a symbol's doc comment, shown above its code */

static const char schema[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE entries(id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, name TEXT NOT NULL,\n"
    "  path TEXT NOT NULL, line INTEGER NOT NULL, end_line INTEGER NOT NULL,\n"
    "  summary TEXT NOT NULL, snippet TEXT NOT NULL);\n"
    "CREATE VIRTUAL TABLE fts USING fts5(name, words, path, summary, body, content='',\n"
    "  tokenize='porter unicode61');\n";

/* ---- words ------------------------------------------------------------------------------------------ */

void kp__cs_split_words(const char *s, struct kp_buf *out)
{
	for (const char *p = s; *p;) {
		const char *b;
		if (!isalnum((unsigned char)*p)) {
			p++;
			continue;
		}
		b = p;
		while (isalnum((unsigned char)*p))
			p++;
		/* One identifier run [b, p): split at lower->Upper and at UPPER->Upperlower. */
		if (out->len)
			kp_buf_addch(out, ' ');
		for (const char *c = b; c < p; c++) {
			if (c > b && isupper((unsigned char)*c) &&
			    (islower((unsigned char)c[-1]) ||
			     (isupper((unsigned char)c[-1]) && c + 1 < p && islower((unsigned char)c[1]))))
				kp_buf_addch(out, ' ');
			kp_buf_addch(out, (char)tolower((unsigned char)*c));
		}
	}
}

/* ---- building ----------------------------------------------------------------------------------------- */

struct builder {
	sqlite3 *db;
	sqlite3_stmt *ins_entry, *ins_fts;
	const char *root;
	struct kp_cs_stats *st;
	long nfiles;
};

static int db_fail(sqlite3 *db, const char *what, struct kp_error *err)
{
	return kp_error_set(err, KP_EDB, "code-search index: %s: %s", what,
	                    db ? sqlite3_errmsg(db) : "no database");
}

static int is_source(const char *name)
{
	static const char *const exts[] = {".h", ".hpp", ".cuh", ".inl", ".cu", ".cpp", ".cc"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(exts); i++)
		if (kp_ends_with(name, exts[i]))
			return 1;
	return 0;
}

static int is_example_path(const char *rel)
{
	return (kp_starts_with(rel, "examples/") || strstr(rel, "/examples/")) &&
	       (kp_ends_with(rel, ".cu") || kp_ends_with(rel, ".cpp") || kp_ends_with(rel, ".cc"));
}

/* Lines [from, to] (1-based) of text into out, without trailing blank lines. */
static void slice_lines(const char *text, size_t len, int from, int to, struct kp_buf *out)
{
	int line = 1;
	size_t i = 0, start = 0;
	while (i < len && line < from) {
		if (text[i++] == '\n')
			line++;
	}
	start = i;
	while (i < len && line <= to) {
		if (text[i++] == '\n')
			line++;
	}
	kp_buf_add(out, text + start, i - start);
	kp_buf_rtrim(out);
}

static int insert(struct builder *b, enum kp_cs_kind kind, const char *name, const char *words,
                  const char *path, int line, int end_line, const char *summary, const char *snippet,
                  const char *body, struct kp_error *err)
{
	sqlite3_stmt *e = b->ins_entry, *f = b->ins_fts;
	sqlite3_int64 id;
	sqlite3_reset(e);
	sqlite3_bind_int(e, 1, kind);
	sqlite3_bind_text(e, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(e, 3, path, -1, SQLITE_STATIC);
	sqlite3_bind_int(e, 4, line);
	sqlite3_bind_int(e, 5, end_line);
	sqlite3_bind_text(e, 6, summary, -1, SQLITE_STATIC);
	sqlite3_bind_text(e, 7, snippet, -1, SQLITE_STATIC);
	if (sqlite3_step(e) != SQLITE_DONE)
		return db_fail(b->db, "adding an entry", err);
	id = sqlite3_last_insert_rowid(b->db);
	sqlite3_reset(f);
	sqlite3_bind_int64(f, 1, id);
	sqlite3_bind_text(f, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(f, 3, words, -1, SQLITE_STATIC);
	sqlite3_bind_text(f, 4, path, -1, SQLITE_STATIC);
	sqlite3_bind_text(f, 5, summary, -1, SQLITE_STATIC);
	sqlite3_bind_text(f, 6, body, -1, SQLITE_STATIC);
	if (sqlite3_step(f) != SQLITE_DONE)
		return db_fail(b->db, "adding an entry to the full-text index", err);
	return 0;
}

/* "examples/cute/tutorial/sgemm_sm80.cu" -> "example cute tutorial: sgemm sm80" (when it describes itself
 * not). */
static void fallback_description(const char *rel, char *out, size_t n)
{
	const char *base = strrchr(rel, '/');
	struct kp_buf dir = KP_BUF_INIT, stem = KP_BUF_INIT;
	char *d = kp_xstrndup(rel, base ? (size_t)(base - rel) : 0), *dot;
	char *s = kp_xstrdup(base ? base + 1 : rel);
	if ((dot = strrchr(s, '.')))
		*dot = 0;
	kp__cs_split_words(kp_starts_with(d, "examples") ? d + 8 : d, &dir);
	kp__cs_split_words(s, &stem);
	snprintf(out, n, "example %s: %s", dir.buf, stem.buf);
	kp_buf_release(&dir);
	kp_buf_release(&stem);
	free(d);
	free(s);
}

/* The first sentence of the comment above a symbol (lines [doc, line)). */
static void doc_summary(const char *text, size_t len, const struct kp_cs_symbol *s, char *out, size_t n)
{
	struct kp_buf doc = KP_BUF_INIT;
	out[0] = 0;
	if (s->doc_line >= s->line)
		return;
	slice_lines(text, len, s->doc_line, s->line - 1, &doc);
	kp_cs_describe(doc.buf, doc.len, out, n);
	kp_buf_release(&doc);
}

static int index_symbol(struct builder *b, const char *rel, const char *text, size_t len,
                        const struct kp_cs_symbol *s, struct kp_buf *file_words, struct kp_error *err)
{
	struct kp_buf name = KP_BUF_INIT, words = KP_BUF_INIT, snip = KP_BUF_INIT;
	char summary[256];
	int from = s->doc_line < s->line - DOC_LINES_KEPT ? s->line - DOC_LINES_KEPT : s->doc_line;
	int to = s->end_line < from + KP_CS_SNIPPET_LINES - 1 ? s->end_line : from + KP_CS_SNIPPET_LINES - 1;
	int rc;

	if (s->scope[0])
		kp_buf_addf(&name, "%s::", s->scope);
	kp_buf_adds(&name, s->name);
	if (s->args[0])
		kp_buf_addf(&name, "<%s>", s->args);
	kp__cs_split_words(s->name, &words);
	kp_buf_addch(&words, ' ');
	kp__cs_split_words(s->scope, &words);
	kp_buf_addch(&words, ' ');
	kp__cs_split_words(s->args, &words);
	doc_summary(text, len, s, summary, sizeof(summary));
	slice_lines(text, len, from, to, &snip);
	rc = insert(b, s->kind, name.buf, words.buf, rel, from, to, summary, snip.buf, snip.buf, err);
	kp_buf_addf(file_words, " %s", s->name);
	b->st->symbols++;
	kp_buf_release(&name);
	kp_buf_release(&words);
	kp_buf_release(&snip);
	return rc;
}

static int index_file(struct builder *b, const char *path, const char *rel, struct kp_error *err)
{
	struct kp_buf text = KP_BUF_INIT, names = KP_BUF_INIT, words = KP_BUF_INIT, snip = KP_BUF_INIT;
	struct kp_cs_symbols syms = {0};
	char desc[256];
	int example = is_example_path(rel), lines = 0, rc = 0;

	if (kp_read_file(path, FILE_CAP, &text, NULL))
		goto out; /* unreadable or too big: not indexed */
	for (size_t i = 0; i < text.len; i++)
		lines += text.buf[i] == '\n';
	kp_cs_extract(text.buf, text.len, MAX_SYMBOLS_PER_FILE, &syms);
	for (size_t i = 0; i < syms.n && !rc; i++)
		rc = index_symbol(b, rel, text.buf, text.len, &syms.v[i], &names, err);
	if (rc)
		goto out;
	kp_cs_describe(text.buf, text.len, desc, sizeof(desc));
	if (!desc[0] && example)
		fallback_description(rel, desc, sizeof(desc));
	kp__cs_split_words(rel, &words);
	/* A file's snippet: its first lines after the licence, which name what it includes and declares. */
	{
		int from = 1;
		const char *lic = memmem(text.buf, text.len, "**********/", 11);
		if (lic && lic - text.buf < 8000)
			for (const char *c = text.buf; c < lic; c++)
				from += *c == '\n';
		slice_lines(text.buf, text.len, from + (lic ? 1 : 0), from + KP_CS_SNIPPET_LINES / 2, &snip);
	}
	kp_buf_addf(&names, " %s", desc);
	rc = insert(b, example ? KP_CS_EXAMPLE : KP_CS_FILE, rel, words.buf, rel, 1, lines, desc, snip.buf,
	            names.buf, err);
	if (example)
		b->st->examples++;
	else
		b->st->files++;
out:
	kp_cs_symbols_release(&syms);
	kp_buf_release(&text);
	kp_buf_release(&names);
	kp_buf_release(&words);
	kp_buf_release(&snip);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Indexes every source under dir (rel: its path relative to the root), in name order. */
static int walk(struct builder *b, const char *dir, const char *rel, int depth, struct kp_error *err)
{
	struct kp_strvec names = KP_STRVEC_INIT;
	struct kp_buf path = KP_BUF_INIT, sub = KP_BUF_INIT;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (depth > 16 || !(d = opendir(dir)))
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			kp_strvec_push(&names, de->d_name);
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n && !rc; i++) {
		struct stat st;
		kp_buf_reset(&path);
		kp_buf_reset(&sub);
		kp_path_join(&path, dir, names.v[i]);
		if (*rel)
			kp_path_join(&sub, rel, names.v[i]);
		else
			kp_buf_adds(&sub, names.v[i]);
		if (lstat(path.buf, &st) != 0 || S_ISLNK(st.st_mode))
			continue;
		if (S_ISDIR(st.st_mode))
			rc = walk(b, path.buf, sub.buf, depth + 1, err);
		else if (S_ISREG(st.st_mode) && is_source(names.v[i])) {
			if (++b->nfiles > MAX_FILES)
				rc = kp_error_set(err, KP_ETOOBIG,
				                  "code-search index: more than %d sources under '%s'",
				                  MAX_FILES, b->root);
			else
				rc = index_file(b, path.buf, sub.buf, err);
		}
	}
	kp_strvec_release(&names);
	kp_buf_release(&path);
	kp_buf_release(&sub);
	return rc;
}

static int set_meta(sqlite3 *db, const char *key, const char *value, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = 0;
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(db, "writing meta", err);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_fail(db, "writing meta", err);
	sqlite3_finalize(st);
	return rc;
}

int kp_cs_index_path(const char *version, struct kp_buf *out, struct kp_error *err)
{
	int rc = kp_cache_dir(out, err);
	if (!rc)
		rc = kp_buf_addf(out, "/codesearch/cutlass-%s.db", version);
	return rc;
}

static int set_meta_count(sqlite3 *db, const char *key, long n, struct kp_error *err)
{
	char num[32];
	snprintf(num, sizeof(num), "%ld", n);
	return set_meta(db, key, num, err);
}

/* The new index's database at `path`: no journal (a failed build is thrown away), the schema, the
 * two inserts; one transaction open. */
static int open_db(struct builder *b, const char *path, struct kp_error *err)
{
	if (sqlite3_open_v2(path, &b->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		return db_fail(b->db, "creating the database", err);
	if (sqlite3_exec(b->db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;", NULL, NULL,
	                 NULL) != SQLITE_OK ||
	    sqlite3_exec(b->db, schema, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(b->db, "creating the schema (does this SQLite have FTS5?)", err);
	if (sqlite3_prepare_v2(b->db,
	                       "INSERT INTO entries(kind, name, path, line, end_line, summary, snippet) "
	                       "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	                       -1, &b->ins_entry, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(
	        b->db,
	        "INSERT INTO fts(rowid, name, words, path, summary, body) VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1,
	        &b->ins_fts, NULL) != SQLITE_OK)
		return db_fail(b->db, "preparing inserts", err);
	return 0;
}

/* Builds into a temporary file beside db_path, then renames it into place. `dirs`: {abs, rel} pairs. */
static int build(const char *root, const char *const (*dirs)[2], size_t ndirs, const char *version,
                 const char *db_path, struct kp_cs_stats *st_out, struct kp_error *err)
{
	struct builder b = {0};
	struct kp_cs_stats st = {0};
	struct kp_buf tmp = KP_BUF_INIT, dir = KP_BUF_INIT;
	double t0 = kp_now();
	const char *slash;
	int fd, rc = 0;

	slash = strrchr(db_path, '/');
	if (slash && slash != db_path) {
		kp_buf_add(&dir, db_path, (size_t)(slash - db_path));
		if ((rc = kp_mkdir_p(dir.buf, 0755, err)))
			goto out;
	}
	kp_buf_addf(&tmp, "%s.tmp-XXXXXX", db_path);
	if ((fd = mkstemp(tmp.buf)) < 0) {
		rc = kp_error_set(err, KP_EIO, "code-search index: cannot create '%s': %s", tmp.buf,
		                  strerror(errno));
		kp_buf_reset(&tmp);
		goto out;
	}
	close(fd);
	if ((rc = open_db(&b, tmp.buf, err)))
		goto out;
	b.root = root;
	b.st = &st;
	for (size_t i = 0; i < ndirs && !rc; i++)
		rc = walk(&b, dirs[i][0], dirs[i][1], 0, err);
	if (rc)
		goto out;
	if ((rc = set_meta(b.db, "schema", SCHEMA_VERSION, err)) ||
	    (rc = set_meta(b.db, "version", version, err)) || (rc = set_meta(b.db, "root", root, err)) ||
	    (rc = set_meta_count(b.db, "files", st.files, err)) ||
	    (rc = set_meta_count(b.db, "examples", st.examples, err)) ||
	    (rc = set_meta_count(b.db, "symbols", st.symbols, err)))
		goto out;
	if (sqlite3_exec(b.db, "COMMIT; INSERT INTO fts(fts) VALUES('optimize');", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		rc = db_fail(b.db, "committing", err);
		goto out;
	}
	sqlite3_finalize(b.ins_entry);
	sqlite3_finalize(b.ins_fts);
	b.ins_entry = b.ins_fts = NULL;
	if (sqlite3_close(b.db) != SQLITE_OK) {
		rc = db_fail(b.db, "closing", err);
		goto out;
	}
	b.db = NULL;
	if (rename(tmp.buf, db_path) != 0) {
		rc = kp_error_set(err, KP_EIO, "code-search index: cannot move '%s' to '%s': %s", tmp.buf,
		                  db_path, strerror(errno));
		goto out;
	}
	kp_buf_reset(&tmp);
	st.seconds = kp_now() - t0;
	kp_strlcpy(st.path, db_path, sizeof(st.path));
	if (st_out)
		*st_out = st;
out:
	sqlite3_finalize(b.ins_entry);
	sqlite3_finalize(b.ins_fts);
	if (b.db)
		sqlite3_close(b.db);
	if (tmp.len)
		unlink(tmp.buf);
	kp_buf_release(&tmp);
	kp_buf_release(&dir);
	return rc;
}

int kp_cs_index_build(const struct kp_cutlass *c, const char *db_path, struct kp_cs_stats *st,
                      struct kp_error *err)
{
	struct kp_buf path = KP_BUF_INIT;
	const char *dirs[3][2];
	size_t n = 0;
	int rc;

	dirs[n][0] = c->include;
	dirs[n++][1] = "include";
	if (c->util_include) {
		dirs[n][0] = c->util_include;
		dirs[n++][1] = "tools/util/include";
	}
	if (c->examples) {
		dirs[n][0] = c->examples;
		dirs[n++][1] = "examples";
	}
	if (!db_path) {
		if ((rc = kp_cs_index_path(c->version, &path, err)))
			goto out;
		db_path = path.buf;
	}
	rc = build(c->root, (const char *const(*)[2])dirs, n, c->version, db_path, st, err);
out:
	kp_buf_release(&path);
	return rc;
}

int kp_cs_index_build_dir(const char *root, const char *version, const char *db_path, struct kp_cs_stats *st,
                          struct kp_error *err)
{
	const char *dirs[1][2] = {{root, ""}};
	if (!kp_path_is_dir(root))
		return kp_error_set(err, KP_ENOENT, "code-search index: '%s' is not a directory", root);
	return build(root, (const char *const(*)[2])dirs, 1, version, db_path, st, err);
}

/* ---- opening ---------------------------------------------------------------------------------------------
 */

static char *meta_get(sqlite3 *db, const char *key)
{
	sqlite3_stmt *st;
	char *v = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?1", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = kp_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

int kp_cs_index_open(struct kp_cs_index **out, const char *db_path, struct kp_error *err)
{
	struct kp_cs_index *ix;
	char *schema_v = NULL, *num;
	int rc = 0;

	*out = NULL;
	if (!kp_path_exists(db_path))
		return kp_error_set(err, KP_ENOENT,
		                    "no code-search index at '%s': run 'kernelpro codesearch index'",
		                    db_path);
	ix = kp_xcalloc(1, sizeof(*ix));
	pthread_mutex_init(&ix->mu, NULL);
	ix->path = kp_xstrdup(db_path);
	if (sqlite3_open_v2(db_path, &ix->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		rc = db_fail(ix->db, "opening", err);
		goto out;
	}
	sqlite3_busy_timeout(ix->db, 5000);
	schema_v = meta_get(ix->db, "schema");
	if (!schema_v || strcmp(schema_v, SCHEMA_VERSION)) {
		rc = kp_error_set(
		    err, KP_EPARSE,
		    "'%s' is not a code-search index of this kernelpro (schema %s); rebuild it with "
		    "'kernelpro codesearch index'",
		    db_path, schema_v ? schema_v : "missing");
		goto out;
	}
	ix->version = meta_get(ix->db, "version");
	ix->root = meta_get(ix->db, "root");
	if ((num = meta_get(ix->db, "files")))
		kp_parse_long(num, &ix->stats.files), free(num);
	if ((num = meta_get(ix->db, "examples")))
		kp_parse_long(num, &ix->stats.examples), free(num);
	if ((num = meta_get(ix->db, "symbols")))
		kp_parse_long(num, &ix->stats.symbols), free(num);
	kp_strlcpy(ix->stats.path, db_path, sizeof(ix->stats.path));
out:
	free(schema_v);
	if (rc)
		kp_cs_index_close(ix);
	else
		*out = ix;
	return rc;
}

int kp_cs_index_open_default(struct kp_cs_index **out, struct kp_error *err)
{
	const struct kp_cutlass *c = kp_cutlass_cached(err);
	struct kp_buf path = KP_BUF_INIT;
	int rc;

	*out = NULL;
	if (!c)
		return err ? err->code : KP_ENOENT;
	if ((rc = kp_cs_index_path(c->version, &path, err)))
		goto out;
	if (kp_cs_index_open(out, path.buf, NULL) == 0 && kp_cs_index_root(*out) &&
	    !strcmp(kp_cs_index_root(*out), c->root))
		goto out;
	kp_cs_index_close(*out);
	*out = NULL;
	kp_info("code search: indexing CUTLASS %s at %s", c->version, c->root);
	if (!(rc = kp_cs_index_build(c, path.buf, NULL, err)))
		rc = kp_cs_index_open(out, path.buf, err);
out:
	kp_buf_release(&path);
	return rc;
}

void kp_cs_index_close(struct kp_cs_index *ix)
{
	if (!ix)
		return;
	if (ix->db)
		sqlite3_close(ix->db);
	pthread_mutex_destroy(&ix->mu);
	free(ix->path);
	free(ix->version);
	free(ix->root);
	free(ix);
}

const char *kp_cs_index_version(const struct kp_cs_index *ix)
{
	return ix->version ? ix->version : "";
}

const char *kp_cs_index_root(const struct kp_cs_index *ix)
{
	return ix->root;
}

void kp_cs_index_stats(const struct kp_cs_index *ix, struct kp_cs_stats *st)
{
	*st = ix->stats;
}
