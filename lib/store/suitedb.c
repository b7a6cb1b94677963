/* Suite databases: the suite schema's migrations, the frozen task list and each task's progress. */
#include "base/setup.h"

#include <math.h>
#include <sys/stat.h>

#include "kernelpro/log.h"
#include "kernelpro/suitedb.h"
#include "store/store_int.h"

/*
 * migrations[i] takes a suite database from version i to i + 1. Released entries are never
 * edited: a change is a new entry at the end and KP_SUITEDB_SCHEMA_VERSION + 1. meta and
 * sessions have the run database's columns, so the store's functions for them work here too.
 */
static const char *const migrations[] = {
    /* 0 -> 1: the first schema. */
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE sessions (\n"
    "  id INTEGER PRIMARY KEY, started REAL NOT NULL, updated REAL NOT NULL,\n"
    "  elapsed_s REAL NOT NULL DEFAULT 0, pid INTEGER, argv TEXT,\n"
    "  ended INTEGER NOT NULL DEFAULT 0, end_reason TEXT);\n"
    "CREATE TABLE tasks (\n"
    "  idx INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, path TEXT NOT NULL,\n"
    "  kind TEXT NOT NULL, sha256 TEXT NOT NULL, input_bytes REAL, settings TEXT);\n"
    "CREATE TABLE progress (\n"
    "  idx INTEGER PRIMARY KEY, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,\n"
    "  gpu INTEGER, sched_order INTEGER NOT NULL DEFAULT 0, started REAL, updated REAL NOT NULL,\n"
    "  ended REAL, est_ms REAL, reason TEXT, baseline TEXT, baseline_error TEXT, record TEXT);\n",
};

_Static_assert(KP_ARRAY_SIZE(migrations) == KP_SUITEDB_SCHEMA_VERSION, "one migration per schema version");

static const struct kp__store_schema suite_schema = {
    .what = "suite database",
    .noun = "suite",
    .application_id = KP_SUITEDB_APPLICATION_ID,
    .wal = 0,
    .version = KP_SUITEDB_SCHEMA_VERSION,
    .readable = KP_SUITEDB_SCHEMA_VERSION,
    .migrations = migrations,
    .hint_migrate = "kernelpro bench SUITE --resume",
};

/*
 * A process killed inside a transaction leaves a hot journal, which only a connection that may
 * write can roll back: a reader (--status, --merge after a kill -9) first lets one do it.
 */
static void roll_back_hot_journal(const char *path)
{
	struct kp_buf j = KP_BUF_INIT;
	struct kp_store *s = NULL;
	struct kp_error ignore = KP_ERROR_INIT;
	struct stat st;

	kp_buf_addf(&j, "%s-journal", path);
	if (stat(j.buf, &st) == 0 && st.st_size > 0 &&
	    !kp__store_open_schema(&s, path, 0, &suite_schema, &ignore))
		kp_store_schema_version(s); /* a read: SQLite rolls the journal back first */
	kp_store_close(s);
	kp_buf_release(&j);
}

int kp_suitedb_open(struct kp_store **out, const char *path, unsigned flags, struct kp_error *err)
{
	if (flags & KP_STORE_READONLY)
		roll_back_hot_journal(path);
	return kp__store_open_schema(out, path, flags, &suite_schema, err);
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? kp_xstrdup((const char *)t) : NULL;
}

/* ---- tasks ------------------------------------------------------------------------------------- */

void kp_suitedb_task_release(struct kp_suitedb_task *t)
{
	free(t->name);
	free(t->path);
	free(t->kind);
	free(t->sha256);
	free(t->settings);
	memset(t, 0, sizeof(*t));
	t->input_bytes = NAN;
}

int kp_suitedb_task_add(struct kp_store *s, const struct kp_suitedb_task *t, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(s,
	                           "INSERT INTO tasks(idx, name, path, kind, sha256, input_bytes, settings) "
	                           "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	                           &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, t->idx);
	kp__store_bind_text(st, 2, t->name);
	kp__store_bind_text(st, 3, t->path);
	kp__store_bind_text(st, 4, t->kind);
	kp__store_bind_text(st, 5, t->sha256);
	kp__store_bind_real(st, 6, t->input_bytes);
	kp__store_bind_text(st, 7, t->settings);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT)
		return kp_error_set(err, KP_EEXISTS,
		                    "suite database '%s': task #%ld or the name '%s' is taken", s->path,
		                    t->idx, t->name ? t->name : "");
	return rc == SQLITE_DONE ? 0 : kp__store_fail(s, "adding a task", err);
}

void kp_suitedb_tasks_free(struct kp_suitedb_task *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		kp_suitedb_task_release(&v[i]);
	free(v);
}

int kp_suitedb_tasks_load(struct kp_store *s, struct kp_suitedb_task **v, size_t *n, struct kp_error *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc = kp__store_prepare(
	    s, "SELECT idx, name, path, kind, sha256, input_bytes, settings FROM tasks ORDER BY idx", &st,
	    err);
	*v = NULL;
	*n = 0;
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kp_suitedb_task *t;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*v = kp_xrealloc(*v, cap * sizeof(**v));
		}
		t = &(*v)[(*n)++];
		t->idx = (long)sqlite3_column_int64(st, 0);
		t->name = col_str(st, 1);
		t->path = col_str(st, 2);
		t->kind = col_str(st, 3);
		t->sha256 = col_str(st, 4);
		t->input_bytes = kp__store_col_real(st, 5);
		t->settings = col_str(st, 6);
	}
	rc = rc == SQLITE_DONE ? 0 : kp__store_fail(s, "reading the task list", err);
	sqlite3_finalize(st);
	if (rc) {
		kp_suitedb_tasks_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return rc;
}

/* ---- progress ---------------------------------------------------------------------------------- */

void kp_suitedb_progress_init(struct kp_suitedb_progress *p, long idx)
{
	memset(p, 0, sizeof(*p));
	p->idx = idx;
	p->state = kp_xstrdup("pending");
	p->gpu = -1;
	p->started = p->updated = p->ended = p->est_ms = NAN;
}

void kp_suitedb_progress_release(struct kp_suitedb_progress *p)
{
	free(p->state);
	free(p->reason);
	free(p->baseline);
	free(p->baseline_error);
	free(p->record);
	kp_suitedb_progress_init(p, p->idx);
	free(p->state); /* released: no strings at all */
	p->state = NULL;
}

int kp_suitedb_progress_put(struct kp_store *s, struct kp_suitedb_progress *p, struct kp_error *err)
{
	sqlite3_stmt *st;
	int rc = kp__store_prepare(
	    s,
	    "INSERT OR REPLACE INTO progress(idx, state, attempts, gpu, sched_order, started, "
	    "updated, ended, est_ms, reason, baseline, baseline_error, record) "
	    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	    &st, err);
	if (rc)
		return rc;
	p->updated = kp_wall_time();
	sqlite3_bind_int64(st, 1, p->idx);
	kp__store_bind_text(st, 2, p->state ? p->state : "pending");
	sqlite3_bind_int(st, 3, p->attempts);
	if (p->gpu >= 0)
		sqlite3_bind_int(st, 4, p->gpu);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int64(st, 5, p->order);
	kp__store_bind_real(st, 6, p->started);
	sqlite3_bind_double(st, 7, p->updated);
	kp__store_bind_real(st, 8, p->ended);
	kp__store_bind_real(st, 9, p->est_ms);
	kp__store_bind_text(st, 10, p->reason);
	kp__store_bind_text(st, 11, p->baseline);
	kp__store_bind_text(st, 12, p->baseline_error);
	kp__store_bind_text(st, 13, p->record);
	return kp__store_step_done(s, st, "recording a task's progress", err);
}

void kp_suitedb_progress_free(struct kp_suitedb_progress *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		kp_suitedb_progress_release(&v[i]);
	free(v);
}

int kp_suitedb_progress_load(struct kp_store *s, struct kp_suitedb_progress **v, size_t *n,
                             struct kp_error *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc = kp__store_prepare(
	    s,
	    "SELECT idx, state, attempts, gpu, sched_order, started, updated, ended, est_ms, "
	    "reason, baseline, baseline_error, record FROM progress ORDER BY idx",
	    &st, err);
	*v = NULL;
	*n = 0;
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kp_suitedb_progress *p;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*v = kp_xrealloc(*v, cap * sizeof(**v));
		}
		p = &(*v)[(*n)++];
		p->idx = (long)sqlite3_column_int64(st, 0);
		p->state = col_str(st, 1);
		p->attempts = sqlite3_column_int(st, 2);
		p->gpu = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 3);
		p->order = (long)sqlite3_column_int64(st, 4);
		p->started = kp__store_col_real(st, 5);
		p->updated = kp__store_col_real(st, 6);
		p->ended = kp__store_col_real(st, 7);
		p->est_ms = kp__store_col_real(st, 8);
		p->reason = col_str(st, 9);
		p->baseline = col_str(st, 10);
		p->baseline_error = col_str(st, 11);
		p->record = col_str(st, 12);
		if (!p->state)
			p->state = kp_xstrdup("pending");
	}
	rc = rc == SQLITE_DONE ? 0 : kp__store_fail(s, "reading the suite's progress", err);
	sqlite3_finalize(st);
	if (rc) {
		kp_suitedb_progress_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return rc;
}
