/* Unit tests: the run database — schema and migrations, rows, transactions, memory upserts, counters, sessions. */
#include "base/setup.h"

#include <math.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/store.h"
#include "kernelpro/str.h"
#include "store/store_int.h"

struct fixture {
	char *dir;
	char path[512];
	struct kp_store *s;
};

static int setup(void **state)
{
	struct fixture *f = kp_xcalloc(1, sizeof(*f));
	struct kp_error err = KP_ERROR_INIT;
	f->dir = kp_test_tmpdir();
	snprintf(f->path, sizeof(f->path), "%s/run.db", f->dir);
	if (kp_store_open(&f->s, f->path, KP_STORE_CREATE, &err))
		fail_msg("%s", kp_error_msg(&err));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	kp_store_close(f->s);
	kp_test_tmpdir_remove(f->dir);
	free(f);
	return 0;
}

static void test_open_and_version(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_store *ro;
	sqlite3 *db;
	char missing[600];

	assert_int_equal(kp_store_schema_version(f->s), KP_STORE_SCHEMA_VERSION);
	KP_ASSERT_OK(kp_store_check(f->s, &err), &err);
	/* WAL mode is on: a write goes to the write-ahead log beside the file. */
	KP_ASSERT_OK(kp_store_meta_set(f->s, "k", "v", &err), &err);
	snprintf(missing, sizeof(missing), "%s-wal", f->path);
	assert_true(kp_path_exists(missing));
	/* A reader can open it while the writer holds it. */
	KP_ASSERT_OK(kp_store_open(&ro, f->path, KP_STORE_READONLY, &err), &err);
	kp_store_close(ro);

	snprintf(missing, sizeof(missing), "%s/none.db", f->dir);
	assert_int_equal(kp_store_open(&ro, missing, 0, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "none.db"));

	/* A file from a newer kernelpro is refused with both versions named. */
	kp_store_close(f->s);
	f->s = NULL;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	kp_error_clear(&err);
	assert_int_equal(kp_store_open(&f->s, f->path, 0, &err), KP_EUNSUPPORTED);
	assert_non_null(strstr(kp_error_msg(&err), "99"));
	assert_null(f->s);
}

static void write_bytes(const char *path, const char *data, size_t n)
{
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_write_file_atomic(path, data, n, &err), &err);
}

static long file_size(const char *path)
{
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	long n;
	KP_ASSERT_OK(kp_read_file(path, 0, &b, &err), &err);
	n = (long)b.len;
	kp_buf_release(&b);
	return n;
}

static void test_migration_from_empty(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	char path[600];
	struct kp_store *s;
	sqlite3 *db;

	/* An SQLite database without the schema is brought forward only when creating ... */
	snprintf(path, sizeof(path), "%s/old.db", f->dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_exec(db, "CREATE TABLE unrelated(x)", NULL, NULL, NULL);
	sqlite3_close(db);
	/* ... never on an open of a run's (a run killed while being created, or another program's file). */
	assert_int_equal(kp_store_open(&s, path, KP_STORE_READONLY, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "holds no run"));
	kp_error_clear(&err);
	assert_int_equal(kp_store_open(&s, path, 0, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "start the run again"));
	KP_ASSERT_OK(kp_store_open(&s, path, KP_STORE_CREATE, &err), &err);
	assert_int_equal(kp_store_schema_version(s), KP_STORE_SCHEMA_VERSION);
	kp_store_close(s);
}

/*
 * Issue 21: a 0-byte run.db got "open it once read-write to migrate it", and a read-write open
 * made it a database.
 */
static void test_empty_or_foreign_file(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	char path[600];
	struct kp_store *s = NULL;

	snprintf(path, sizeof(path), "%s/empty.db", f->dir);
	write_bytes(path, "", 0);
	for (int ro = 0; ro < 2; ro++) {
		kp_error_clear(&err);
		assert_int_equal(kp_store_open(&s, path, ro ? KP_STORE_READONLY : 0, &err), KP_EDB);
		assert_non_null(strstr(kp_error_msg(&err), "is empty (0 bytes)"));
		assert_null(strstr(kp_error_msg(&err), "migrate"));
		assert_int_equal(file_size(path), 0); /* left as it was */
	}
	/* Creating one there is fine. */
	KP_ASSERT_OK(kp_store_open(&s, path, KP_STORE_CREATE, &err), &err);
	kp_store_close(s);

	snprintf(path, sizeof(path), "%s/text.db", f->dir);
	write_bytes(path, "{\"not\": \"a database at all\"}\n", 30);
	for (unsigned fl = 0; fl < 3; fl++) {
		kp_error_clear(&err);
		unsigned how = fl == 2 ? KP_STORE_CREATE : fl ? KP_STORE_READONLY : 0;
		assert_int_equal(kp_store_open(&s, path, how, &err), KP_EDB);
		assert_non_null(strstr(kp_error_msg(&err), "is not an SQLite database"));
	}
	assert_int_equal(file_size(path), 30);

	/* A FIFO (or a directory) is refused at once, never waited on. */
	snprintf(path, sizeof(path), "%s/fifo.db", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	kp_error_clear(&err);
	assert_int_equal(kp_store_open(&s, path, KP_STORE_READONLY, &err), KP_EDB);
	assert_non_null(strstr(kp_error_msg(&err), "not a regular file"));
	kp_error_clear(&err);
	assert_int_equal(kp_store_open(&s, f->dir, 0, &err), KP_EDB);
}

/* Writes a run database of an older schema at `path`: its migrations, then `sql`. */
static void write_old_db(const char *path, int version, const char *sql)
{
	char pragma[64];
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	for (size_t v = 0; v < (size_t)version; v++)
		assert_int_equal(sqlite3_exec(db, kp__run_schema.migrations[v], NULL, NULL, NULL), SQLITE_OK);
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", version);
	assert_int_equal(sqlite3_exec(db, pragma, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* Issue 21: schema 1 stored each session's time as the run's total so far; the migration repairs them. */
static void test_migration_repairs_session_times(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_store *s;
	char old[600];

	/* Sessions of 10 s, 20 s, 0 s (killed before its first commit) and 5 s, as schema 1 kept them. */
	snprintf(old, sizeof(old), "%s/v1-sessions.db", f->dir);
	write_old_db(old, 1,
		     "INSERT INTO sessions(started, updated, elapsed_s) VALUES(1, 1, 10),"
		     " (2, 2, 30), (3, 3, 0), (4, 4, 45)");
	kp_store_close(f->s);
	f->s = NULL;
	/* A reader sees what schema 1 wrote ... */
	KP_ASSERT_OK(kp_store_open(&s, old, KP_STORE_READONLY, &err), &err);
	assert_int_equal(kp_store_schema_version(s), 1);
	assert_true(fabs(kp_store_elapsed_total(s) - 85) < 1e-9);
	kp_store_close(s);
	/* ... and the first read-write open migrates: the run's time is the sessions' sum. */
	KP_ASSERT_OK(kp_store_open(&f->s, old, 0, &err), &err);
	assert_int_equal(kp_store_schema_version(f->s), KP_STORE_SCHEMA_VERSION);
	assert_true(fabs(kp_store_elapsed_total(f->s) - 35) < 1e-9);
	assert_int_equal(kp_store_session_count(f->s), 4);
}

static void test_meta_counters_sessions(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	long s1, s2;

	KP_ASSERT_OK(kp_store_meta_set(f->s, "task", "a", &err), &err);
	KP_ASSERT_OK(kp_store_meta_set(f->s, "task", "b", &err), &err);
	KP_ASSERT_OK(kp_store_meta_get(f->s, "task", &b, &err), &err);
	assert_string_equal(b.buf, "b");
	assert_int_equal(kp_store_meta_get(f->s, "nope", &b, &err), KP_ENOENT);

	assert_true(kp_store_counter(f->s, "tokens") == 0);
	KP_ASSERT_OK(kp_store_counter_add(f->s, "tokens", 10, &err), &err);
	KP_ASSERT_OK(kp_store_counter_add(f->s, "tokens", 5.5, &err), &err);
	assert_true(kp_store_counter(f->s, "tokens") == 15.5);

	KP_ASSERT_OK(kp_store_session_begin(f->s, "optimize x", &s1, &err), &err);
	KP_ASSERT_OK(kp_store_session_touch(f->s, s1, 3.0, &err), &err);
	/* The first session was killed (never ended); the second adds to its time. */
	KP_ASSERT_OK(kp_store_session_begin(f->s, "optimize --resume", &s2, &err), &err);
	KP_ASSERT_OK(kp_store_session_end(f->s, s2, 2.0, "budget", &err), &err);
	assert_true(fabs(kp_store_elapsed_total(f->s) - 5.0) < 1e-9);
	assert_int_equal(kp_store_session_count(f->s), 2);
	kp_buf_release(&b);
}

static void test_nodes_and_rollback(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_node_row root, child, got, *rows;
	struct kp_buf src = KP_BUF_INIT;
	char lang[16];
	size_t n;

	kp_node_row_init(&root);
	root.kind = KP_NODE_ROOT;
	KP_ASSERT_OK(kp_store_node_insert(f->s, &root, "cuda", "ref source", &err), &err);
	assert_true(root.id > 0);
	kp_node_row_init(&child);
	child.parent = root.id;
	child.kind = KP_NODE_REFINE;
	child.depth = 1;
	snprintf(child.summary, sizeof(child.summary), "float4 loads");
	KP_ASSERT_OK(kp_store_node_insert(f->s, &child, "cuda", "child source", &err), &err);

	child.evaluated = 1;
	child.outcome = KP_OUTCOME_CORRECT;
	child.speedup = 1.5;
	child.reward = log(1.5);
	child.visits = 1;
	child.sum_r = child.reward;
	child.max_r = child.reward;
	KP_ASSERT_OK(kp_store_node_update(f->s, &child, &err), &err);
	KP_ASSERT_OK(kp_store_node_get(f->s, child.id, &got, &err), &err);
	assert_int_equal(got.parent, root.id);
	assert_int_equal(got.outcome, KP_OUTCOME_CORRECT);
	assert_true(got.speedup == 1.5);
	assert_true(isnan(got.energy_j)); /* never measured: missing, not 0 */
	assert_string_equal(got.summary, "float4 loads");

	KP_ASSERT_OK(kp_store_candidate_get(f->s, child.id, &src, lang, &err), &err);
	assert_string_equal(src.buf, "child source");
	assert_string_equal(lang, "cuda");

	/* Nothing of a rolled-back transaction remains. */
	KP_ASSERT_OK(kp_store_begin(f->s, &err), &err);
	struct kp_node_row lost;
	kp_node_row_init(&lost);
	lost.parent = child.id;
	lost.kind = KP_NODE_REFINE;
	KP_ASSERT_OK(kp_store_node_insert(f->s, &lost, "cuda", "lost", &err), &err);
	kp_store_rollback(f->s);
	KP_ASSERT_OK(kp_store_nodes_load(f->s, &rows, &n, &err), &err);
	assert_int_equal(n, 2);
	assert_int_equal(rows[1].id, child.id);
	free(rows);

	got.id = 999;
	assert_int_equal(kp_store_node_update(f->s, &got, &err), KP_ENOENT);
	kp_buf_release(&src);
}

static int count_evals(const struct kp_eval_row *r, void *ud)
{
	long *n = ud;
	assert_string_equal(r->log, ++*n == 1 ? "ok" : "second");
	return 0;
}

static void test_evaluations_and_findings(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_node_row root;
	struct kp_buf log = KP_BUF_INIT, fb = KP_BUF_INIT, fj = KP_BUF_INIT;
	struct kp_eval_row er = {0}, last;
	json_t *findings;
	long nevals = 0;

	kp_node_row_init(&root);
	KP_ASSERT_OK(kp_store_node_insert(f->s, &root, "cuda", "x", &err), &err);
	er.node = root.id;
	er.outcome = KP_OUTCOME_CORRECT;
	er.time_ms = 2.0;
	er.speedup = NAN;
	er.energy_j = NAN;
	er.log = "ok";
	/* No profile saved yet: nothing, and no error. */
	KP_ASSERT_OK(kp_store_profile_get(f->s, root.id, &fj, &err), &err);
	assert_int_equal(fj.len, 0);
	er.profile_json = "{\"dir\":\"p/1\"}";
	er.feedback = "memory-bound: 1.2 TB/s of 4.2 TB/s";
	er.findings_json = "[{\"tool\":\"coalescing\",\"severity\":\"high\",\"title\":\"strided loads\","
			   "\"recommendations\":[\"use float4\"]},{\"tool\":\"occupancy\",\"severity\":\"low\",\"title\":\"t\"}]";
	KP_ASSERT_OK(kp_store_eval_insert(f->s, &er, 0, &err), &err);
	KP_ASSERT_OK(kp_store_eval_text(f->s, root.id, &log, &fb, &fj, &err), &err);
	assert_string_equal(log.buf, "ok");
	assert_string_equal(fb.buf, er.feedback);
	assert_non_null(strstr(fj.buf, "\"coalescing\""));
	assert_non_null(strstr(fj.buf, "use float4"));
	assert_true(strstr(fj.buf, "coalescing") < strstr(fj.buf, "occupancy")); /* order kept */
	kp_buf_reset(&fj);
	KP_ASSERT_OK(kp_store_profile_get(f->s, root.id, &fj, &err), &err);
	assert_string_equal(fj.buf, er.profile_json);
	kp_buf_reset(&fj);
	/* One row per finding, each whole, in the tools' order. */
	KP_ASSERT_OK(kp_store_eval_text(f->s, root.id, NULL, NULL, &fj, &err), &err);
	findings = json_loads(fj.buf, 0, NULL);
	assert_int_equal(json_array_size(findings), 2);
	assert_string_equal(kp_json_str(json_array_get(findings, 0), "severity", ""), "high");
	assert_string_equal(kp_json_str(json_array_get(findings, 1), "tool", ""), "occupancy");
	json_decref(findings);
	kp_buf_reset(&fj);
	/* The latest evaluation's numbers, and every evaluation in order. */
	KP_ASSERT_OK(kp_store_eval_last(f->s, root.id, &last, &err), &err);
	assert_int_equal(last.outcome, KP_OUTCOME_CORRECT);
	assert_true(last.time_ms == 2.0 && isnan(last.speedup) && !last.log);
	assert_int_equal(kp_store_eval_last(f->s, root.id + 1, &last, &err), KP_ENOENT);

	/* Findings that are not an array are kept verbatim as one row rather than lost. */
	er.findings_json = "not json";
	er.log = "second";
	KP_ASSERT_OK(kp_store_eval_insert(f->s, &er, 0, &err), &err);
	KP_ASSERT_OK(kp_store_evals_each(f->s, count_evals, &nevals, &err), &err);
	assert_int_equal(nevals, 2);
	kp_buf_release(&log);
	kp_buf_release(&fb);
	kp_buf_release(&fj);
}

/* A profile made after the evaluation (the loop's on-demand profiling): saved beside it, findings replaced.
 */
static void test_profile_put_after_evaluation(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_node_row root;
	struct kp_buf fb = KP_BUF_INIT, fj = KP_BUF_INIT, pj = KP_BUF_INIT;
	struct kp_eval_row er = {0};
	json_t *findings;
	int yes = 1;

	kp_node_row_init(&root);
	KP_ASSERT_OK(kp_store_node_insert(f->s, &root, "cuda", "x", &err), &err);
	er.node = root.id;
	er.outcome = KP_OUTCOME_CORRECT;
	er.time_ms = er.speedup = er.energy_j = NAN;
	er.findings_json = "[{\"tool\":\"old\"}]";
	KP_ASSERT_OK(kp_store_eval_insert(f->s, &er, 0, &err), &err);
	KP_ASSERT_OK(kp_store_profile_exists(f->s, root.id, &yes, &err), &err);
	assert_int_equal(yes, 0); /* evaluated, not profiled */
	KP_ASSERT_OK(kp_store_profile_put(f->s, root.id, "{\"dir\":\"p/1\"}", "bandwidth: 90%",
	                                  "[{\"tool\":\"a\"},{\"tool\":\"b\"}]", &err),
	             &err);
	KP_ASSERT_OK(kp_store_profile_exists(f->s, root.id, &yes, &err), &err);
	assert_int_equal(yes, 1);
	KP_ASSERT_OK(kp_store_profile_get(f->s, root.id, &pj, &err), &err);
	assert_string_equal(pj.buf, "{\"dir\":\"p/1\"}");
	KP_ASSERT_OK(kp_store_eval_text(f->s, root.id, NULL, &fb, &fj, &err), &err);
	assert_string_equal(fb.buf, "bandwidth: 90%");
	findings = json_loads(fj.buf, 0, NULL);
	assert_int_equal(json_array_size(findings), 2); /* the evaluation's one finding replaced */
	assert_string_equal(kp_json_str(json_array_get(findings, 0), "tool", ""), "a");
	json_decref(findings);
	/* NULL leaves a part as it was. */
	kp_buf_reset(&fb);
	kp_buf_reset(&fj);
	KP_ASSERT_OK(kp_store_profile_put(f->s, root.id, "{}", NULL, NULL, &err), &err);
	KP_ASSERT_OK(kp_store_eval_text(f->s, root.id, NULL, &fb, &fj, &err), &err);
	assert_string_equal(fb.buf, "bandwidth: 90%");
	assert_non_null(strstr(fj.buf, "\"b\""));
	kp_buf_release(&fb);
	kp_buf_release(&fj);
	kp_buf_release(&pj);
}

static int one_exchange(const struct kp_exchange_row *x, void *ud)
{
	int *n = ud;
	assert_string_equal(x->prompt, "prompt text");
	assert_string_equal(x->mode, "optimize");
	if (x->node == 2)
		assert_true(x->reply && !x->error && !strcmp(x->reply, "```cuda\n...```"));
	else
		assert_true(!x->reply && x->error && x->latency_s == 1.5 && x->tokens_in == 10);
	++*n;
	return 0;
}

static void test_exchanges(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	int n = 0;
	struct kp_exchange_row x = {1, 0, "optimize", 0, "prompt text", NULL, "timeout", 10, 0, 0, 1.5};
	KP_ASSERT_OK(kp_store_exchange_insert(f->s, &x, &err), &err);
	x.node = 2;
	x.reply = "```cuda\n...```";
	x.error = NULL;
	KP_ASSERT_OK(kp_store_exchange_insert(f->s, &x, &err), &err);
	assert_int_equal(kp_store_exchange_count(f->s, 0), 2);
	assert_int_equal(kp_store_exchange_count(f->s, 1), 1);
	/* Those that made node 2, with their strings; a failed request has no reply. */
	KP_ASSERT_OK(kp_store_exchanges_each(f->s, 2, one_exchange, &n, &err), &err);
	assert_int_equal(n, 1);
	KP_ASSERT_OK(kp_store_exchanges_each(f->s, 0, one_exchange, &n, &err), &err);
	assert_int_equal(n, 3);
}

struct seen {
	int n;
	char last[128];
	double gain;
};

static int gain_of(const struct kp_store_memory_row *r, void *ud)
{
	((struct seen *)ud)->gain = r->gain;
	return 0;
}

static int count_mem(const struct kp_store_memory_row *r, void *ud)
{
	struct seen *s = ud;
	s->n++;
	snprintf(s->last, sizeof(s->last), "%s/%s/%d/%d", kp_store_memory_kind_name(r->kind), r->key, r->tries,
		 r->wins);
	return 0;
}

/* Reads the nodes of `s`: one, the candidate written before schema 3, without a format. */
static void assert_one_node_no_format(struct kp_store *s)
{
	struct kp_error err = KP_ERROR_INIT;
	struct kp_node_row *rows = NULL, one;
	size_t n = 0;

	KP_ASSERT_OK(kp_store_nodes_load(s, &rows, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].format, "");
	free(rows);
	KP_ASSERT_OK(kp_store_node_get(s, 1, &one, &err), &err);
	assert_string_equal(one.format, "");
}

/*
 * Schema 3: each candidate's format. Runs of schema 1 and 2 are read as they are (no format) by a
 * read-only open and migrated to 3 by a read-write one; schema 1's session times are repaired on
 * the way (2 runs before 3).
 */
static void test_candidate_format(void **state)
{
	static const char old_run[] = "INSERT INTO nodes(kind, depth, created) VALUES(0, 0, 1); "
				      "INSERT INTO candidates(node_id, lang, sha256, source) "
				      "VALUES(1, 'cuda', 'x', 'src'); "
				      "INSERT INTO sessions(started, updated, elapsed_s) "
				      "VALUES(1, 1, 10), (2, 2, 30);";
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_node_row root, child, *rows = NULL;
	size_t n = 0;
	char old[600];
	struct kp_store *s;

	kp_node_row_init(&root);
	root.kind = KP_NODE_ROOT;
	KP_ASSERT_OK(kp_store_node_insert(f->s, &root, "python", "ref", &err), &err);
	kp_node_row_init(&child);
	child.parent = root.id;
	child.kind = KP_NODE_REFINE;
	kp_strlcpy(child.format, "triton", sizeof(child.format));
	KP_ASSERT_OK(kp_store_node_insert(f->s, &child, "python", "cand", &err), &err);
	KP_ASSERT_OK(kp_store_nodes_load(f->s, &rows, &n, &err), &err);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].format, "");
	assert_string_equal(rows[1].format, "triton");
	free(rows);

	for (int version = 1; version <= 2; version++) {
		snprintf(old, sizeof(old), "%s/v%d.db", f->dir, version);
		write_old_db(old, version, old_run);
		/* A reader sees what that schema wrote, and leaves it as it was ... */
		KP_ASSERT_OK(kp_store_open(&s, old, KP_STORE_READONLY, &err), &err);
		assert_int_equal(kp_store_schema_version(s), version);
		assert_one_node_no_format(s);
		kp_store_close(s);
		/* ... a writer migrates it to the current schema, and a version written then has its format. */
		KP_ASSERT_OK(kp_store_open(&s, old, 0, &err), &err);
		assert_int_equal(kp_store_schema_version(s), KP_STORE_SCHEMA_VERSION);
		assert_one_node_no_format(s);
		assert_true(fabs(kp_store_elapsed_total(s) - (version == 1 ? 30 : 40)) < 1e-9);
		kp_node_row_init(&child);
		child.parent = 1;
		child.kind = KP_NODE_REFINE;
		kp_strlcpy(child.format, "triton", sizeof(child.format));
		KP_ASSERT_OK(kp_store_node_insert(s, &child, "python", "cand", &err), &err);
		KP_ASSERT_OK(kp_store_node_get(s, child.id, &root, &err), &err);
		assert_string_equal(root.format, "triton");
		kp_store_close(s);
	}
}

static int count_tunings(const struct kp_tuning_row *r, void *ud)
{
	struct seen *s = ud;
	s->n++;
	snprintf(s->last, sizeof(s->last), "#%ld %s %s b%ld %s %s", r->node, r->status, r->strategy, r->budget,
		 r->best_point ? r->best_point : "-", r->note ? r->note : "-");
	return 0;
}

/*
 * Schema 4: the tune action. A version is tuned once (a second begin is refused); its end records
 * what it found; variants' results are kept per (space, point, GPU), the last one winning. Runs of
 * schemas 1 to 3 read as having no tune action and no result (read-only), and migrate to 4.
 */
static void test_tunings(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_node_row root;
	struct kp_tuning_row t = {0};
	struct seen s = {0};
	char status[16], old[600];
	double sec = 0;
	struct kp_store *o;

	kp_node_row_init(&root);
	root.kind = KP_NODE_ROOT;
	KP_ASSERT_OK(kp_store_node_insert(f->s, &root, "cuda", "ref", &err), &err);
	t.node = root.id;
	t.strategy = "auto";
	t.budget = 16;
	t.seed = 3;
	t.derive = "declared";
	KP_ASSERT_OK(kp_store_tuning_begin(f->s, &t, &err), &err);
	assert_int_equal(kp_store_tuning_begin(f->s, &t, &err), KP_EEXISTS);
	assert_non_null(strstr(kp_error_msg(&err), "tuned before"));
	kp_error_clear(&err);
	KP_ASSERT_OK(kp_store_tunings_each(f->s, count_tunings, &s, &err), &err);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.last, "#1 running auto b16 - -");
	t.status = "done";
	t.strategy = "exhaustive";
	t.best_point = "BLOCK=512";
	t.best_ms = 1.5;
	t.untuned_ms = NAN;
	t.trials = 4;
	KP_ASSERT_OK(kp_store_tuning_end(f->s, &t, &err), &err);
	s.n = 0;
	KP_ASSERT_OK(kp_store_tunings_each(f->s, count_tunings, &s, &err), &err);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.last, "#1 done exhaustive b16 BLOCK=512 -");
	t.node = 99;
	assert_int_equal(kp_store_tuning_end(f->s, &t, &err), KP_ENOENT);
	kp_error_clear(&err);

	assert_int_equal(kp_store_tune_result_get(f->s, "h", "BLOCK=512", "H200", status, &sec, &err), 0);
	KP_ASSERT_OK(kp_store_tune_result_put(f->s, "h", "BLOCK=512", "H200", root.id, "wrong", NAN, &err), &err);
	KP_ASSERT_OK(kp_store_tune_result_put(f->s, "h", "BLOCK=512", "H200", root.id, "ok", 2e-3, &err), &err);
	KP_ASSERT_OK(kp_store_tune_result_put(f->s, "h", "BLOCK=512", "A100", root.id, "ok", 5e-3, &err), &err);
	assert_int_equal(kp_store_tune_result_get(f->s, "h", "BLOCK=512", "H200", status, &sec, &err), 1);
	assert_string_equal(status, "ok");
	assert_true(fabs(sec - 2e-3) < 1e-15);
	assert_int_equal(kp_store_tune_result_get(f->s, "h2", "BLOCK=512", "H200", status, &sec, &err), 0);

	for (int version = 1; version <= 3; version++) {
		snprintf(old, sizeof(old), "%s/t%d.db", f->dir, version);
		write_old_db(old, version, "INSERT INTO nodes(kind, depth, created) VALUES(0, 0, 1);");
		KP_ASSERT_OK(kp_store_open(&o, old, KP_STORE_READONLY, &err), &err);
		s.n = 0;
		KP_ASSERT_OK(kp_store_tunings_each(o, count_tunings, &s, &err), &err);
		assert_int_equal(s.n, 0);
		assert_int_equal(kp_store_tune_result_get(o, "h", "BLOCK=512", "H200", status, &sec, &err), 0);
		kp_store_close(o);
		KP_ASSERT_OK(kp_store_open(&o, old, 0, &err), &err);
		assert_int_equal(kp_store_schema_version(o), 4);
		t.node = 1;
		KP_ASSERT_OK(kp_store_tuning_begin(o, &t, &err), &err);
		KP_ASSERT_OK(kp_store_tune_result_put(o, "h", "BLOCK=64", "H200", 1, "ok", 1e-3, &err), &err);
		kp_store_close(o);
	}
}

static void test_memory_upsert(void **state)
{
	struct fixture *f = *state;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_store_memory_row r = {0};
	struct seen s = {0};

	r.kind = KP_MEM_RECOMMENDATION;
	r.key = "coalescing: strided loads";
	r.text = "use float4";
	r.outcome = KP_MEMO_FAILED;
	r.gain = -0.1;
	r.family = "softmax";
	KP_ASSERT_OK(kp_store_memory_add(f->s, &r, &err), &err);
	assert_int_equal(r.tries, 1);
	assert_int_equal(r.wins, 0);
	r.outcome = KP_MEMO_WORKED;
	r.gain = 0.4;
	KP_ASSERT_OK(kp_store_memory_add(f->s, &r, &err), &err);
	assert_int_equal(r.tries, 2);
	assert_int_equal(r.wins, 1);
	r.gain = 0.1; /* the larger gain is kept */
	KP_ASSERT_OK(kp_store_memory_add(f->s, &r, &err), &err);
	assert_int_equal(kp_store_memory_count(f->s), 1);

	/* Another family's lesson is separate and filtered out. */
	r.family = "gemm";
	KP_ASSERT_OK(kp_store_memory_add(f->s, &r, &err), &err);
	KP_ASSERT_OK(kp_store_memory_each(f->s, "softmax", count_mem, &s, &err), &err);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.last, "recommendation/coalescing: strided loads/3/2");
	s.n = 0;
	KP_ASSERT_OK(kp_store_memory_each(f->s, "softmax", gain_of, &s, &err), &err);
	assert_true(fabs(s.gain - 0.4) < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_open_and_version, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_migration_from_empty, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_empty_or_foreign_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_migration_repairs_session_times, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_meta_counters_sessions, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nodes_and_rollback, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_evaluations_and_findings, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_profile_put_after_evaluation, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exchanges, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_memory_upsert, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_candidate_format, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tunings, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
