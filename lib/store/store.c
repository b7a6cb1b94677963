/* The run database: opening in WAL mode, schema migrations, transactions, metadata, counters, sessions. */
#include "base/setup.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernelpro/fault.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/secret.h"
#include "kernelpro/store.h"
#include "store/store_int.h"

/* How long a reader or writer waits for a lock held by another connection. */
#define STORE_BUSY_TIMEOUT_MS 10000

int kp__store_fail(struct kp_store *s, const char *what, struct kp_error *err)
{
	int code = KP_EDB;
	int rc = s->db ? sqlite3_errcode(s->db) : SQLITE_ERROR;
	if (rc == SQLITE_FULL || rc == SQLITE_IOERR)
		code = KP_EIO;
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return kp_error_set(err, code, "%s '%s': %s: %s (another kernelpro process is "
					       "writing it; wait for it or stop it)",
				    s->what, s->path, what, sqlite3_errmsg(s->db));
	return kp_error_set(err, code, "%s '%s': %s: %s", s->what, s->path, what,
			    s->db ? sqlite3_errmsg(s->db) : "no connection");
}

int kp__store_prepare(struct kp_store *s, const char *sql, sqlite3_stmt **st, struct kp_error *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return kp__store_fail(s, "preparing a statement", err);
	}
	return 0;
}

int kp__store_step_done(struct kp_store *s, sqlite3_stmt *st, const char *what, struct kp_error *err)
{
	int rc, ret = kp_fault(KP_FAULT_SQLITE_WRITE, what, err);
	if (ret) {
		sqlite3_finalize(st);
		return ret;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = kp__store_fail(s, what, err);
	sqlite3_finalize(st);
	return ret;
}

void kp__store_bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

void kp__store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	char *scrubbed = v ? kp_secret_scrub(v, strlen(v), NULL) : NULL; /* no key reaches a database */
	if (v)
		sqlite3_bind_text(st, i, scrubbed ? scrubbed : v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
	free(scrubbed);
}

double kp__store_col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int exec_sql(struct kp_store *s, const char *sql, const char *what, struct kp_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		kp_error_set(err, KP_EDB, "%s '%s': %s: %s", s->what, s->path, what, msg ? msg : "?");
		sqlite3_free(msg);
		return KP_EDB;
	}
	return 0;
}

/* One integer PRAGMA (user_version, application_id). */
static int read_pragma_int(struct kp_store *s, const char *pragma, int *value, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, pragma, &st, err);
	if (rc)
		return rc;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return kp__store_fail(s, "reading the schema version", err);
	}
	*value = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

static int read_user_version(struct kp_store *s, int *version, struct kp_error *err)
{
	return read_pragma_int(s, "PRAGMA user_version", version, err);
}

/*
 * Brings the schema from `from` to the schema's version, each step in its own transaction; the
 * first step also stamps the file with the schema's application id.
 */
static int migrate(struct kp_store *s, const struct kp__store_schema *schema, int from, struct kp_error *err)
{
	char pragma[96];
	for (size_t v = (size_t)from; v < (size_t)schema->version; v++) {
		int rc = exec_sql(s, "BEGIN IMMEDIATE", "starting a migration", err);
		if (rc)
			return rc;
		rc = exec_sql(s, schema->migrations[v], "migrating the schema", err);
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %zu; PRAGMA application_id = %d", v + 1,
			 schema->application_id);
		if (!rc)
			rc = exec_sql(s, pragma, "recording the schema version", err);
		if (!rc)
			rc = exec_sql(s, "COMMIT", "committing a migration", err);
		if (rc) {
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
			kp_error_prefix(err, "schema %zu -> %zu", v, v + 1);
			return rc;
		}
	}
	return 0;
}

/*
 * What is at `path` before SQLite touches it: missing (fine only when creating), empty (killed
 * while it was being created, or a full disk: fine only when creating), or a file that must start
 * as every SQLite database does. Refused with what to do instead of SQLite's message or a
 * migration of a file that is no database of ours.
 */
static int check_file(const char *path, unsigned flags, const struct kp__store_schema *schema,
		      struct kp_error *err)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	ssize_t n = -1;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block the open */

	if (fd < 0 && errno == ENOENT) {
		if (flags & KP_STORE_CREATE)
			return 0;
		return kp_error_set(err, KP_ENOENT, "%s '%s' does not exist", schema->what, path);
	}
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		return kp_error_set(err, KP_EDB, "%s '%s' is not a regular file; remove it", schema->what, path);
	}
	if (fd >= 0) {
		n = read(fd, head, sizeof(head));
		close(fd);
	}
	if (n < 0)
		return kp_error_set(err, KP_EIO, "cannot read %s '%s': %s", schema->what, path, strerror(errno));
	if (n == 0 && (flags & KP_STORE_CREATE))
		return 0;
	if (n == 0)
		return kp_error_set(err, KP_EDB,
				    "%s '%s' is empty (0 bytes): nothing was saved in it (the "
				    "%s was killed while it was being created, or the disk was full); "
				    "remove its directory and start the %s again",
				    schema->what, path, schema->noun, schema->noun);
	if ((size_t)n < sizeof(head) || memcmp(head, magic, sizeof(magic)))
		return kp_error_set(err, KP_EDB,
				    "'%s' is not an SQLite database (damaged, or another kind of file): "
				    "kernelpro cannot read it; restore it from a copy or remove it",
				    path);
	return 0;
}

/*
 * For a read-only open: when the database's directory cannot be written and no write-ahead log
 * holds anything (a WAL database closed cleanly leaves none), `uri` gets "file:PATH?immutable=1"
 * and 1 is returned. With a log waiting, the plain open reads it (it needs the -shm beside it).
 */
static int immutable_uri(const char *path, struct kp_buf *uri)
{
	struct kp_buf dir = KP_BUF_INIT, wal = KP_BUF_INIT;
	const char *slash = strrchr(path, '/');
	struct stat st;
	int use;
	kp_buf_add(&dir, path, slash ? (size_t)(slash - path) + (slash == path) : 0);
	if (!dir.len)
		kp_buf_adds(&dir, ".");
	kp_buf_addf(&wal, "%s-wal", path);
	use = access(dir.buf, W_OK) != 0 && (stat(wal.buf, &st) != 0 || st.st_size == 0);
	if (use) {
		kp_buf_adds(uri, "file:");
		for (const char *p = path; *p; p++) {
			if (*p == '%' || *p == '?' || *p == '#')
				kp_buf_addf(uri, "%%%02X", (unsigned char)*p);
			else
				kp_buf_addch(uri, *p);
		}
		kp_buf_adds(uri, "?immutable=1");
	}
	kp_buf_release(&dir);
	kp_buf_release(&wal);
	return use;
}

/* A file of another schema (a suite database opened as a run database, or the reverse) is refused. */
static int check_application(struct kp_store *s, const struct kp__store_schema *schema, int version,
			     struct kp_error *err)
{
	int app = 0, rc = read_pragma_int(s, "PRAGMA application_id", &app, err);
	if (rc || app == schema->application_id || (version == 0 && app == 0))
		return rc;
	return kp_error_set(err, KP_EUNSUPPORTED, "'%s' is not a %s (its SQLite application id is %d, not %d)",
			    s->path, schema->what, app, schema->application_id);
}

int kp__store_open_schema(struct kp_store **out, const char *path, unsigned flags,
			  const struct kp__store_schema *schema, struct kp_error *err)
{
	struct kp_store *s = kp_xcalloc(1, sizeof(*s));
	struct kp_buf uri = KP_BUF_INIT;
	const char *open_path = path;
	int version = 0, rc;
	int oflags = (flags & KP_STORE_READONLY) ? SQLITE_OPEN_READONLY
			 : SQLITE_OPEN_READWRITE | ((flags & KP_STORE_CREATE) ? SQLITE_OPEN_CREATE : 0);

	*out = NULL;
	s->path = kp_xstrdup(path);
	s->what = schema->what;
	s->readonly = !!(flags & KP_STORE_READONLY);
	if ((rc = check_file(path, flags, schema, err)))
		goto out;
	if (s->readonly && immutable_uri(path, &uri)) {
		/* A directory we cannot write (a read-only mount): SQLite cannot make the WAL's -shm file there,
		 * so the file is opened as the unchanging thing it is there (issue 30, N6). */
		oflags |= SQLITE_OPEN_URI;
		open_path = uri.buf;
	}
	if (sqlite3_open_v2(open_path, &s->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = kp__store_fail(s, "opening", err);
		goto out;
	}
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(s->db, 0);
	if (!s->readonly) {
		/* WAL: readers never block the writer; FULL: a commit survives power loss, not just a crash.
		 * A rollback journal where another host may open the file (WAL needs shared memory). */
		rc = exec_sql(s,
			      schema->wal ? "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON"
					  : "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL; "
					    "PRAGMA foreign_keys = ON",
			      "setting the journal mode", err);
		if (rc)
			goto out;
	}
	if ((rc = read_user_version(s, &version, err)) || (rc = check_application(s, schema, version, err)))
		goto out;
	if (version > schema->version) {
		rc = kp_error_set(err, KP_EUNSUPPORTED,
				  "%s '%s' has schema version %d; this kernelpro knows up to %d "
				  "(use a newer kernelpro)",
				  schema->what, path, version, schema->version);
		goto out;
	}
	if (!version && !(flags & KP_STORE_CREATE)) {
		rc = kp_error_set(err, KP_ENOENT,
				  "%s '%s' holds no %s (no schema: the %s was killed while it "
				  "was being created, or it is another program's database); remove it and "
				  "start the %s again",
				  schema->what, path, schema->noun, schema->noun, schema->noun);
		goto out;
	}
	if (version < schema->readable || (version < schema->version && !s->readonly)) {
		if (s->readonly) {
			rc = kp_error_set(err, KP_EUNSUPPORTED,
					  "%s '%s' has schema version %d, older than %d; open it once "
					  "read-write (%s) to migrate it",
					  schema->what, path, version, schema->readable, schema->hint_migrate);
			goto out;
		}
		rc = migrate(s, schema, version, err);
		if (rc)
			goto out;
		version = KP_STORE_SCHEMA_VERSION;
	}
	s->version = version;
	*out = s;
	kp_buf_release(&uri);
	return 0;
out:
	kp_buf_release(&uri);
	kp_store_close(s);
	return rc;
}

int kp_store_open(struct kp_store **out, const char *path, unsigned flags, struct kp_error *err)
{
	return kp__store_open_schema(out, path, flags, &kp__run_schema, err);
}

void kp_store_close(struct kp_store *s)
{
	if (!s)
		return;
	if (s->in_tx)
		kp_store_rollback(s);
	if (s->db)
		sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

int kp_store_schema_version(struct kp_store *s)
{
	int v = -1;
	struct kp_error err = KP_ERROR_INIT;
	read_user_version(s, &v, &err);
	return v;
}

const char *kp_store_path(const struct kp_store *s)
{
	return s->path;
}

int kp_store_check(struct kp_store *s, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "PRAGMA integrity_check", &st, err);
	if (rc)
		return rc;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		rc = kp__store_fail(s, "checking integrity", err);
	else if (strcmp((const char *)sqlite3_column_text(st, 0), "ok"))
		rc = kp_error_set(err, KP_EDB, "%s '%s' is damaged: %s", s->what, s->path,
				  (const char *)sqlite3_column_text(st, 0));
	else
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

int kp_store_begin(struct kp_store *s, struct kp_error *err)
{
	if (s->in_tx)
		KP_BUG("nested run-database transaction");
	int rc = exec_sql(s, "BEGIN IMMEDIATE", "starting a transaction", err);
	if (!rc)
		s->in_tx = 1;
	return rc;
}

int kp_store_commit(struct kp_store *s, struct kp_error *err)
{
	int rc = kp_fault(KP_FAULT_SQLITE_WRITE, "committing", err);
	if (!rc)
		rc = exec_sql(s, "COMMIT", "committing", err);
	if (rc)
		kp_store_rollback(s);
	s->in_tx = 0;
	return rc;
}

void kp_store_rollback(struct kp_store *s)
{
	if (sqlite3_get_autocommit(s->db) == 0)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_tx = 0;
}

/* ---- meta and counters ----------------------------------------------------------------------- */

int kp_store_meta_set(struct kp_store *s, const char *key, const char *value, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "INSERT INTO meta(key, value) VALUES(?1, ?2) "
				      "ON CONFLICT(key) DO UPDATE SET value = excluded.value", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	kp__store_bind_text(st, 2, value ? value : "");
	return kp__store_step_done(s, st, "writing run metadata", err);
}

int kp_store_meta_get(struct kp_store *s, const char *key, struct kp_buf *out, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "SELECT value FROM meta WHERE key = ?1", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		kp_buf_adds(out, (const char *)sqlite3_column_text(st, 0));
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = kp_error_set(err, KP_ENOENT, "%s '%s' has no '%s' entry", s->what, s->path, key);
	} else {
		rc = kp__store_fail(s, "reading run metadata", err);
	}
	sqlite3_finalize(st);
	return rc;
}

int kp_store_meta_set_json(struct kp_store *s, const char *key, json_t *v, struct kp_error *err)
{
	char *t = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	int rc = kp_store_meta_set(s, key, t, err);
	free(t);
	json_decref(v);
	return rc;
}

int kp_store_meta_get_json(struct kp_store *s, const char *key, json_t **out, struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT;
	int rc = kp_store_meta_get(s, key, &b, err);
	if (!rc)
		rc = kp_json_load_mem(key, b.buf, b.len, out, err);
	kp_buf_release(&b);
	return rc;
}

int kp_store_counter_add(struct kp_store *s, const char *name, double delta, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "INSERT INTO counters(name, value) VALUES(?1, ?2) "
				      "ON CONFLICT(name) DO UPDATE SET value = value + excluded.value", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 2, delta);
	return kp__store_step_done(s, st, "updating a budget counter", err);
}

/* A single number from a query with at most one bound text parameter; `def` when no row or NULL. */
static double query_double(struct kp_store *s, const char *sql, const char *param, double def)
{
	sqlite3_stmt *st;
	double v = def;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return def;
	if (param)
		sqlite3_bind_text(st, 1, param, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

double kp_store_counter(struct kp_store *s, const char *name)
{
	return query_double(s, "SELECT value FROM counters WHERE name = ?1", name, 0);
}

/* ---- sessions ---------------------------------------------------------------------------------- */

int kp_store_session_begin(struct kp_store *s, const char *argv_text, long *id, struct kp_error *err)
{
	sqlite3_stmt *st;
	double now = kp_wall_time();
	int rc = kp__store_prepare(s, "INSERT INTO sessions(started, updated, pid, argv) VALUES(?1, ?1, ?2, ?3)",
				   &st, err);
	if (rc)
		return rc;
	sqlite3_bind_double(st, 1, now);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)getpid());
	kp__store_bind_text(st, 3, argv_text);
	rc = kp__store_step_done(s, st, "recording the session", err);
	if (!rc)
		*id = (long)sqlite3_last_insert_rowid(s->db);
	return rc;
}

int kp_store_session_touch(struct kp_store *s, long id, double elapsed_s, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "UPDATE sessions SET updated = ?2, elapsed_s = ?3 WHERE id = ?1", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_double(st, 2, kp_wall_time());
	sqlite3_bind_double(st, 3, elapsed_s);
	return kp__store_step_done(s, st, "updating the session", err);
}

int kp_store_session_end(struct kp_store *s, long id, double elapsed_s, const char *reason, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s, "UPDATE sessions SET updated = ?2, elapsed_s = ?3, ended = 1, end_reason = ?4 "
				      "WHERE id = ?1", &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_double(st, 2, kp_wall_time());
	sqlite3_bind_double(st, 3, elapsed_s);
	kp__store_bind_text(st, 4, reason);
	return kp__store_step_done(s, st, "closing the session", err);
}

double kp_store_elapsed_total(struct kp_store *s)
{
	return query_double(s, "SELECT SUM(elapsed_s) FROM sessions", NULL, 0);
}

long kp_store_session_count(struct kp_store *s)
{
	return (long)query_double(s, "SELECT COUNT(*) FROM sessions", NULL, 0);
}

long kp_store_exchange_count(struct kp_store *s, int with_node_only)
{
	return (long)query_double(s, with_node_only ? "SELECT COUNT(*) FROM prompts WHERE node_id IS NOT NULL"
						    : "SELECT COUNT(*) FROM prompts",
				  NULL, 0);
}

long kp_store_memory_count(struct kp_store *s)
{
	return (long)query_double(s, "SELECT COUNT(*) FROM memory", NULL, 0);
}
