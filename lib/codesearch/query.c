/*
 * Queries over the code-search index: words in, ranked hits out (entries with every word first,
 * then entries with some, by BM25 weighted toward names, with a small prior by kind), and the hits
 * as prompt text within a character budget, with a reference line per snippet for search memory.
 */
#include "base/setup.h"

#include <ctype.h>

#include "codesearch/cs_int.h"
#include "kernelpro/str.h"

#define MAX_WORDS          16
#define CANDIDATES_PER_HIT 4 /* rows read per hit wanted, before the kind prior reorders them */

void kp_cs_hits_release(struct kp_cs_hits *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].name);
		free(h->v[i].path);
		free(h->v[i].summary);
		free(h->v[i].snippet);
	}
	free(h->v);
	memset(h, 0, sizeof(*h));
}

static int has_id(const struct kp_cs_hits *h, long id)
{
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].id == id)
			return 1;
	return 0;
}

/* ---- the FTS5 expression ------------------------------------------------------------------------------ */

static int stop_word(const char *w)
{
	static const char *const words[] = {"a",  "an", "the", "of",   "for",  "with", "how",
	                                    "to", "in", "and", "on",   "or",   "use",  "using",
	                                    "is", "it", "by",  "from", "what", "does", "do"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(words); i++)
		if (!strcmp(w, words[i]))
			return 1;
	return 0;
}

/* Other spellings of a word: CuTe says GMMA where PTX says wgmma, and so on. */
static const char *synonym(const char *w)
{
	static const char *const pairs[][2] = {
	    {"wgmma", "gmma"},  {"gmma", "wgmma"},       {"smem", "shared"},        {"shared", "smem"},
	    {"gmem", "global"}, {"swizzled", "swizzle"}, {"warpspecialized", "ws"}, {"tensorcore", "mma"}};
	for (size_t i = 0; i < KP_ARRAY_SIZE(pairs); i++)
		if (!strcmp(w, pairs[i][0]))
			return pairs[i][1];
	return NULL;
}

/* Splits the query into at most MAX_WORDS distinct words of [a-z0-9]. */
static size_t query_words(const char *query, char words[MAX_WORDS][48])
{
	struct kp_buf split = KP_BUF_INIT;
	size_t n = 0;
	kp__cs_split_words(query, &split);
	for (char *p = split.buf, *tok; (tok = strsep(&p, " ")) && n < MAX_WORDS;) {
		int dup = 0;
		if (!*tok || stop_word(tok) || strlen(tok) >= 48)
			continue;
		for (size_t i = 0; i < n; i++)
			dup |= !strcmp(words[i], tok);
		if (!dup)
			kp_strlcpy(words[n++], tok, 48);
	}
	kp_buf_release(&split);
	return n;
}

/* `"w1" ("w2" OR "syn2")` (all) or `"w1" OR "w2" OR "syn2"` (any). Words are [a-z0-9] only. */
static void fts_expr(char words[MAX_WORDS][48], size_t n, int all, struct kp_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		const char *syn = synonym(words[i]);
		if (i)
			kp_buf_adds(out, all ? " AND " : " OR ");
		if (syn && all)
			kp_buf_addf(out, "(\"%s\" OR \"%s\")", words[i], syn);
		else if (syn)
			kp_buf_addf(out, "\"%s\" OR \"%s\"", words[i], syn);
		else
			kp_buf_addf(out, "\"%s\"", words[i]);
	}
}

/* Preference between kinds for equal text relevance: code over file listings. */
static double kind_weight(enum kp_cs_kind k)
{
	switch (k) {
	case KP_CS_EXAMPLE: return 1.3;
	case KP_CS_CLASS: return 1.2;
	case KP_CS_FUNCTION: return 1.15;
	case KP_CS_ALIAS: return 1.1;
	case KP_CS_FILE: return 1.0;
	case KP_CS_ENUM: return 0.8;
	default: return 1.0;
	}
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return kp_xstrdup(t ? (const char *)t : "");
}

static int by_score(const void *a, const void *b)
{
	const struct kp_cs_hit *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

#define HIT_COLUMNS "e.id, e.kind, e.name, e.path, e.line, e.end_line, e.summary, e.snippet"

/* Full-text relevance (BM25, lower is better), names weighted most. */
static const char sql_match[] =
    "SELECT " HIT_COLUMNS ", bm25(fts, 8.0, 4.0, 2.0, 2.0, 1.0) AS r "
    "FROM fts JOIN entries e ON e.id = fts.rowid WHERE fts MATCH ?1 ORDER BY r, e.id LIMIT ?2";
/* Symbols named exactly by an identifier of the query (in any namespace, any specialization). */
static const char sql_name[] =
    "SELECT " HIT_COLUMNS ", -1.0 FROM entries e WHERE e.kind >= 2 AND (e.name = ?1 OR "
    "e.name GLOB '*::' || ?1 OR e.name GLOB '*::' || ?1 || '<*' OR e.name GLOB ?1 || '<*') "
    "ORDER BY e.id LIMIT ?2";

/*
 * Runs one query (sql_match with a MATCH expression, or sql_name with an identifier); appends up
 * to `want` new hits (ids not already in out), `bonus` added to their scores.
 */
static int run_match(struct kp_cs_index *ix, const char *sql, const char *expr, size_t want, double bonus,
                     struct kp_cs_hits *out, struct kp_error *err)
{
	sqlite3_stmt *st;
	struct kp_cs_hits got = {0};
	int rc = 0, step;

	if (sqlite3_prepare_v2(ix->db, sql, -1, &st, NULL) != SQLITE_OK)
		return kp_error_set(err, KP_EDB, "code search: %s", sqlite3_errmsg(ix->db));
	sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)(want * CANDIDATES_PER_HIT + out->n));
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct kp_cs_hit *h;
		long id = (long)sqlite3_column_int64(st, 0);
		int kind = sqlite3_column_int(st, 1);
		if (has_id(out, id))
			continue;
		KP_ALLOC_GROW(got.v, got.n + 1, got.alloc);
		h = &got.v[got.n++];
		h->id = id;
		h->kind = kind >= 0 && kind < KP_CS_KIND_COUNT ? (enum kp_cs_kind)kind : KP_CS_FILE;
		h->name = col_text(st, 2);
		h->path = col_text(st, 3);
		h->line = sqlite3_column_int(st, 4);
		h->end_line = sqlite3_column_int(st, 5);
		h->summary = col_text(st, 6);
		h->snippet = col_text(st, 7);
		h->score = -sqlite3_column_double(st, 8) * kind_weight(h->kind);
	}
	if (step != SQLITE_DONE)
		rc = kp_error_set(err, KP_EDB, "code search: %s", sqlite3_errmsg(ix->db));
	sqlite3_finalize(st);
	if (got.n)
		qsort(got.v, got.n, sizeof(*got.v), by_score);
	for (size_t i = 0; i < got.n; i++) {
		if (!rc && i < want) {
			KP_ALLOC_GROW(out->v, out->n + 1, out->alloc);
			got.v[i].score += bonus;
			out->v[out->n++] = got.v[i];
			memset(&got.v[i], 0, sizeof(got.v[i]));
		}
	}
	kp_cs_hits_release(&got);
	return rc;
}

/* Identifiers of the query that look like code (an '_' or a capital inside), at least 4 long. */
static size_t query_identifiers(const char *query, char ids[MAX_WORDS][64])
{
	size_t n = 0;
	for (const char *p = query; *p && n < MAX_WORDS;) {
		const char *b = p;
		int codey = 0;
		while (isalnum((unsigned char)*p) || *p == '_') {
			codey |= *p == '_' || (p > b && isupper((unsigned char)*p));
			p++;
		}
		if (p == b) {
			p++;
			continue;
		}
		if (codey && p - b >= 4 && p - b < 64)
			snprintf(ids[n++], 64, "%.*s", (int)(p - b), b);
	}
	return n;
}

int kp_cs_search(struct kp_cs_index *ix, const char *query, int limit, struct kp_cs_hits *out,
                 struct kp_error *err)
{
	char words[MAX_WORDS][48], ids[MAX_WORDS][64];
	struct kp_buf expr = KP_BUF_INIT;
	size_t n = query_words(query, words), nid = query_identifiers(query, ids);
	size_t want = limit > 0 ? (size_t)limit : 10, before = out->n;
	int rc = 0;

	if (!n)
		return kp_error_set(err, KP_EINVAL, "code search: '%s' has no word to look for", query);
	pthread_mutex_lock(&ix->mu);
	/* Tiers: a symbol the query names exactly, then entries with every word, then with some. */
	for (size_t i = 0; i < nid && !rc && out->n - before < (want + 1) / 2; i++)
		rc = run_match(ix, sql_name, ids[i], (want + 1) / 2 - (out->n - before), 2000.0, out, err);
	if (!rc && out->n - before < want) {
		fts_expr(words, n, 1, &expr);
		rc = run_match(ix, sql_match, expr.buf, want - (out->n - before), 1000.0, out, err);
	}
	if (!rc && n > 1 && out->n - before < want) {
		kp_buf_reset(&expr);
		fts_expr(words, n, 0, &expr);
		rc = run_match(ix, sql_match, expr.buf, want - (out->n - before), 0.0, out, err);
	}
	pthread_mutex_unlock(&ix->mu);
	kp_buf_release(&expr);
	return rc;
}

/* ---- references ---------------------------------------------------------------------------------------- */

void kp_cs_ref_format(const struct kp_cs_hit *h, struct kp_buf *out)
{
	kp_buf_addf(out, "%.100s @ %s:%d", h->name, h->path, h->line);
}

int kp_cs_ref_parse(const char *ref, char *name, size_t name_len, char *where, size_t where_len)
{
	const char *at = NULL, *colon, *p;
	for (p = ref; (p = strstr(p, " @ ")); p++)
		at = p;
	if (!at || at == ref || !at[3])
		return KP_EPARSE;
	colon = strrchr(at + 3, ':');
	if (!colon || colon == at + 3 || !colon[1])
		return KP_EPARSE;
	for (p = colon + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return KP_EPARSE;
	snprintf(name, name_len, "%.*s", (int)(at - ref), ref);
	snprintf(where, where_len, "%s", at + 3);
	return 0;
}

/* Is `word` in `s` as a whole identifier? */
static int has_identifier(const char *s, const char *word, size_t n)
{
	for (const char *p = s; n && (p = strstr(p, word)); p++) {
		int before = p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		int after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (!before && !after)
			return 1;
	}
	return 0;
}

int kp_cs_ref_used(const char *ref, const char *source)
{
	char name[160], where[400];
	const char *last, *inc;
	size_t n;
	if (!source || kp_cs_ref_parse(ref, name, sizeof(name), where, sizeof(where)))
		return 0;
	if (strchr(name, '/')) {
		/* a header: used when included ("include/cute/tensor.hpp" -> "cute/tensor.hpp") */
		inc = strstr(name, "include/");
		return strstr(source, inc ? inc + 8 : name) != NULL;
	}
	n = strcspn(name, "<");
	name[n] = 0;
	last = name;
	for (const char *p = name; (p = strstr(p, "::")); p += 2)
		last = p + 2;
	return *last && has_identifier(source, last, strlen(last));
}

/* ---- prompt text ------------------------------------------------------------------------------------------
 */

size_t kp_cs_format_hits(const struct kp_cs_hits *h, size_t max_chars, struct kp_buf *text,
                         struct kp_strvec *refs)
{
	size_t written = 0, used = 0;
	struct kp_buf head = KP_BUF_INIT, ref = KP_BUF_INIT;

	for (size_t i = 0; i < h->n; i++) {
		const struct kp_cs_hit *x = &h->v[i];
		const char *code = x->snippet, *cut;
		size_t room, code_len = strlen(code), keep;
		int more = 0;

		kp_buf_reset(&head);
		kp_buf_addf(&head, "### %s:%d `%.120s` (%s)\n", x->path, x->line, x->name,
		            kp_cs_kind_name(x->kind));
		if (x->summary && *x->summary)
			kp_buf_addf(&head, "%.300s\n", x->summary);
		kp_buf_adds(&head, "```cpp\n");
		/* head + code + "\n```\n\n" and maybe a "// ... N more lines" line */
		if (used + head.len + 6 + 40 + KP_CS_MIN_SNIPPET > max_chars)
			continue;
		room = max_chars - used - head.len - 6 - 40;
		keep = code_len;
		if (keep > room) {
			for (cut = code + room; cut > code && *cut != '\n'; cut--)
				;
			keep = (size_t)(cut - code);
			for (const char *c = code + keep; *c; c++)
				more += *c == '\n';
			more++;
		}
		if (keep < KP_CS_MIN_SNIPPET && keep < code_len)
			continue;
		kp_buf_add(text, head.buf, head.len);
		kp_buf_add(text, code, keep);
		used += head.len + keep;
		if (more) {
			size_t before = text->len;
			kp_buf_addf(text, "\n// ... %d more line%s", more, more == 1 ? "" : "s");
			used += text->len - before;
		}
		kp_buf_adds(text, "\n```\n\n");
		used += 6;
		written++;
		if (refs) {
			kp_buf_reset(&ref);
			kp_cs_ref_format(x, &ref);
			kp_strvec_push(refs, ref.buf);
		}
	}
	kp_buf_release(&head);
	kp_buf_release(&ref);
	return written;
}

static size_t budget_chars(int max_tokens)
{
	return (size_t)(max_tokens > 0 ? max_tokens : KP_CS_DEFAULT_TOKENS) * KP_CS_CHARS_PER_TOKEN;
}

int kp_cs_answer(struct kp_cs_index *ix, const char *query, int max_tokens, struct kp_buf *text,
                 struct kp_strvec *refs, struct kp_error *err)
{
	struct kp_cs_hits h = {0};
	size_t n;
	int rc = kp_cs_search(ix, query, 6, &h, err);
	if (rc)
		goto out;
	if (!h.n) {
		kp_buf_addf(text,
		            "No CUTLASS/CuTe code matches '%s'. Try other words: class or function names "
		            "(make_tma_atom, TiledMMA), or what it does (swizzle shared layout).\n",
		            query);
		goto out;
	}
	n = kp_cs_format_hits(&h, budget_chars(max_tokens), text, refs);
	rc = (int)n;
out:
	kp_cs_hits_release(&h);
	return rc;
}
