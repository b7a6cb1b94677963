/*
 * Unit tests: the bench's task lists (list files, directories in natural order, globs), its option
 * parsers, the suite schema (task list, progress, told apart from run databases), making and
 * opening a suite, and collecting results from shard databases of several shardings.
 */
#include "base/setup.h"

#include <math.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_test.h"
#include "kernelpro/bench.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/suitedb.h"

static void write_file(const char *dir, const char *name, const char *text)
{
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_path_join(&p, dir, name);
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, text, strlen(text), &err), &err);
	kp_buf_release(&p);
}

static void copy_file(const char *from_rel, const char *dir, const char *name)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_test_read(from_rel, &b);
	write_file(dir, name, b.buf);
	kp_buf_release(&b);
}

/* A native task directory DIR/NAME (a copy of examples/native/gelu). */
static void native_task(const char *dir, const char *name)
{
	struct kp_buf p = KP_BUF_INIT;
	kp_path_join(&p, dir, name);
	mkdir(p.buf, 0755);
	copy_file("examples/native/gelu/task.json", p.buf, "task.json");
	copy_file("examples/native/gelu/reference.cu", p.buf, "reference.cu");
	kp_buf_release(&p);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* ---- list files ----------------------------------------------------------------------------------- */

static void test_list_lines(void **state)
{
	static const char text[] = "# a suite\n"
	                           "a.py\n"
	                           "\n"
	                           "   sub/b   evals=5 time=2m tokens=9000 cost=0.5 # trailing comment\r\n"
	                           "/abs/c.py llm=replay:replies/c name=c-one\n"
	                           "d.py llm=openai:gpt-5\n";
	struct kp_bench_list l;
	struct kp_error err = KP_ERROR_INIT;

	kp_bench_list_init(&l);
	KP_ASSERT_OK(kp_bench_list_parse_lines(&l, text, strlen(text), "/base", "list.txt", &err), &err);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].path, "/base/a.py");
	assert_int_equal(l.v[0].set.which, 0);
	assert_string_equal(l.v[1].path, "/base/sub/b");
	assert_int_equal(l.v[1].set.which,
	                 KP_RUN_LIMIT_EVALS | KP_RUN_LIMIT_WALL | KP_RUN_LIMIT_TOKENS | KP_RUN_LIMIT_COST);
	assert_int_equal(l.v[1].set.budget.evals, 5);
	assert_true(l.v[1].set.budget.wall_s == 120);
	assert_int_equal(l.v[1].set.budget.tokens, 9000);
	assert_true(l.v[1].set.budget.cost == 0.5);
	assert_string_equal(l.v[2].path, "/abs/c.py");
	assert_string_equal(l.v[2].set.llm, "replay:/base/replies/c"); /* relative to the list */
	assert_string_equal(l.v[2].set.name, "c-one");
	assert_string_equal(l.v[3].set.llm, "openai:gpt-5");
	kp_bench_list_release(&l);
}

static void test_list_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	    {"a.py\nb.py size=3\n", "list.txt:2: unknown key 'size'"},
	    {"a.py evals=0\n", "list.txt:1: evals must be a whole number 1..1000000000, not '0'"},
	    {"a.py evals=3x\n", "list.txt:1: evals must be a whole number"},
	    {"a.py time=soon\n", "list.txt:1: time must be a duration like 90s, 30m or 2h, not 'soon'"},
	    {"a.py cost=-1\n", "list.txt:1: cost must be a positive number"},
	    {"a.py cost=nan\n", "list.txt:1: cost must be a positive number"},
	    {"\n\na.py evals\n", "list.txt:3: 'evals' is not KEY=VALUE"},
	    {"a.py llm=\n", "list.txt:1: 'llm' has no value"},
	    {"a.py name=../x\n", "list.txt:1: name '../x' must be letters"},
	    {"a.py name=.hidden\n", "list.txt:1: name '.hidden' must be letters"},
	    {"a.py =3\n", "list.txt:1: '=3' is not KEY=VALUE"},
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(cases); i++) {
		struct kp_bench_list l;
		struct kp_error err = KP_ERROR_INIT;
		kp_bench_list_init(&l);
		assert_int_equal(kp_bench_list_parse_lines(&l, cases[i].text, strlen(cases[i].text), "/b",
		                                           "list.txt", &err),
		                 KP_EPARSE);
		if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("case %zu: '%s' does not start with '%s'", i, err.msg, cases[i].msg);
		kp_bench_list_release(&l);
	}
}

static void test_list_limits(void **state)
{
	struct kp_bench_list l;
	struct kp_error err = KP_ERROR_INIT;
	char *big = kp_xcalloc(1, 5000);
	static const char nul[] = "a.py\0b.py\n";

	memset(big, 'a', 4999);
	kp_bench_list_init(&l);
	assert_int_equal(kp_bench_list_parse_lines(&l, big, 4999, "/b", "l", &err), KP_EPARSE);
	assert_non_null(strstr(err.msg, "l:1: the line is longer than 4096 bytes"));
	kp_error_clear(&err);
	assert_int_equal(kp_bench_list_parse_lines(&l, nul, sizeof(nul) - 1, "/b", "l", &err), KP_EPARSE);
	assert_non_null(strstr(err.msg, "NUL byte"));
	free(big);
	kp_bench_list_release(&l);
}

/* Directories: .py files and native task directories, numbers in numeric order; globs; list files. */
static void test_sources(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT, list = KP_BUF_INIT;
	struct kp_bench_list l;
	struct kp_error err = KP_ERROR_INIT;

	kp_path_join(&p, dir, "level1");
	mkdir(p.buf, 0755);
	copy_file("examples/kernelbench/swish_scale.py", p.buf, "10_Ten.py");
	copy_file("examples/kernelbench/swish_scale.py", p.buf, "2_Two.py");
	copy_file("examples/kernelbench/swish_scale.py", p.buf, "1_One.py");
	copy_file("examples/kernelbench/swish_scale.py", p.buf, ".hidden.py");
	write_file(p.buf, "README.md", "not a task\n");
	native_task(p.buf, "3_native");
	kp_buf_adds(&p, "/empty");
	mkdir(p.buf, 0755);

	kp_bench_list_init(&l);
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "level1");
	KP_ASSERT_OK(kp_bench_list_add_source(&l, p.buf, &err), &err);
	assert_int_equal(l.n, 4);
	assert_string_equal(base(l.v[0].path), "1_One.py");
	assert_string_equal(base(l.v[1].path), "2_Two.py");
	assert_string_equal(base(l.v[2].path), "3_native");
	assert_string_equal(base(l.v[3].path), "10_Ten.py");
	assert_int_equal(l.v[0].path[0], '/');

	/* A glob, and a native task named by its task.json. */
	kp_buf_addch(&p, '/');
	kp_buf_adds(&p, "*_T*.py");
	KP_ASSERT_OK(kp_bench_list_add_source(&l, p.buf, &err), &err);
	assert_int_equal(l.n, 6);
	assert_string_equal(base(l.v[4].path), "2_Two.py");
	assert_string_equal(base(l.v[5].path), "10_Ten.py");
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "level1/3_native/task.json");
	KP_ASSERT_OK(kp_bench_list_add_source(&l, p.buf, &err), &err);
	assert_string_equal(base(l.v[6].path), "3_native");

	/* A list file: relative paths from its directory, settings to each task of a directory line. */
	kp_buf_adds(&list, "level1/1_One.py name=first\nlevel1 evals=2\n");
	write_file(dir, "suite.txt", list.buf);
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "suite.txt");
	kp_bench_list_release(&l);
	kp_bench_list_init(&l);
	KP_ASSERT_OK(kp_bench_list_add_source(&l, p.buf, &err), &err);
	assert_int_equal(l.n, 5);
	assert_string_equal(l.v[0].set.name, "first");
	for (size_t i = 1; i < 5; i++)
		assert_int_equal(l.v[i].set.budget.evals, 2);

	/* What is refused, each with a message naming it. */
	kp_buf_reset(&list);
	kp_buf_adds(&list, "level1 name=all\n");
	write_file(dir, "bad.txt", list.buf);
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "bad.txt");
	assert_int_equal(kp_bench_list_add_source(&l, p.buf, &err), KP_EPARSE);
	assert_non_null(strstr(err.msg, "bad.txt:1: name=all names one task, but"));
	kp_error_clear(&err);
	write_file(dir, "nested.txt", "suite.txt\n");
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "nested.txt");
	assert_int_equal(kp_bench_list_add_source(&l, p.buf, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "a list file cannot name another"));
	kp_error_clear(&err);
	write_file(dir, "missing.txt", "# nothing here\nnope.py\n");
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "missing.txt");
	assert_int_equal(kp_bench_list_add_source(&l, p.buf, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "missing.txt:2"));
	kp_error_clear(&err);
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "level1/empty");
	assert_int_equal(kp_bench_list_add_source(&l, p.buf, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "holds no tasks"));
	kp_error_clear(&err);
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "level1/*.cu");
	assert_int_equal(kp_bench_list_add_source(&l, p.buf, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "matches nothing"));

	kp_bench_list_release(&l);
	kp_buf_release(&p);
	kp_buf_release(&list);
	kp_test_tmpdir_remove(dir);
}

/* ---- option parsers -------------------------------------------------------------------------------- */

static void test_shard_and_gpus(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	int k, m, v[8], n;
	static const char *const bad_shards[] = {"",    "1",    "2/2",     "-1/2", "1/0",
	                                         "a/2", "1/2x", "0/10001", " 0/2"};
	static const char *const bad_gpus[] = {"", "0,,1", "x", "1,1", "-1", "1024", "0,1,2,3,4,5,6,7,8"};

	KP_ASSERT_OK(kp_bench_shard_parse("3/8", &k, &m, &err), &err);
	assert_int_equal(k, 3);
	assert_int_equal(m, 8);
	KP_ASSERT_OK(kp_bench_shard_parse("0/1", &k, &m, &err), &err);
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad_shards); i++) {
		kp_error_clear(&err);
		if (kp_bench_shard_parse(bad_shards[i], &k, &m, &err) != KP_EINVAL)
			fail_msg("--shard '%s' was accepted", bad_shards[i]);
	}
	KP_ASSERT_OK(kp_bench_gpus_parse("0,2, 3", v, 8, &n, &err), &err);
	assert_int_equal(n, 3);
	assert_int_equal(v[2], 3);
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad_gpus); i++) {
		kp_error_clear(&err);
		if (kp_bench_gpus_parse(bad_gpus[i], v, 8, &n, &err) != KP_EINVAL)
			fail_msg("--gpus '%s' was accepted", bad_gpus[i]);
	}
	kp_error_clear(&err);
	kp_bench_gpus_parse("1,1", v, 8, &n, &err);
	assert_non_null(strstr(err.msg, "names GPU 1 twice"));
}

/* ---- the suite schema ------------------------------------------------------------------------------ */

static void test_suitedb(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT, rp = KP_BUF_INIT;
	struct kp_store *s = NULL, *r = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_suitedb_task t = {0, "gelu", "/x/gelu", "native", "ab12", 4096, "{\"llm\":\"replay:/r\"}"},
	                       *tv;
	struct kp_suitedb_progress pr, *pv;
	size_t n;

	kp_path_join(&p, dir, "suite.db");
	KP_ASSERT_OK(kp_suitedb_open(&s, p.buf, KP_STORE_CREATE, &err), &err);
	assert_int_equal(kp_store_schema_version(s), KP_SUITEDB_SCHEMA_VERSION);
	KP_ASSERT_OK(kp_suitedb_task_add(s, &t, &err), &err);
	t.idx = 1;
	t.input_bytes = NAN;
	t.settings = NULL;
	assert_int_equal(kp_suitedb_task_add(s, &t, &err), KP_EEXISTS); /* the name is taken */
	t.name = "gelu-2";
	kp_error_clear(&err);
	KP_ASSERT_OK(kp_suitedb_task_add(s, &t, &err), &err);
	KP_ASSERT_OK(kp_suitedb_tasks_load(s, &tv, &n, &err), &err);
	assert_int_equal(n, 2);
	assert_string_equal(tv[0].settings, "{\"llm\":\"replay:/r\"}");
	assert_true(tv[0].input_bytes == 4096);
	assert_true(isnan(tv[1].input_bytes));
	assert_null(tv[1].settings);
	kp_suitedb_tasks_free(tv, n);

	kp_suitedb_progress_init(&pr, 1);
	free(pr.state);
	pr.state = kp_xstrdup("failed");
	pr.attempts = 2;
	pr.gpu = 3;
	pr.order = 7;
	pr.est_ms = 1.5;
	pr.reason = kp_xstrdup("exec evaluator killed by signal 11");
	KP_ASSERT_OK(kp_suitedb_progress_put(s, &pr, &err), &err);
	KP_ASSERT_OK(kp_suitedb_progress_put(s, &pr, &err), &err); /* replaces */
	KP_ASSERT_OK(kp_suitedb_progress_load(s, &pv, &n, &err), &err);
	assert_int_equal(n, 1);
	assert_string_equal(pv[0].state, "failed");
	assert_int_equal(pv[0].gpu, 3);
	assert_int_equal(pv[0].order, 7);
	assert_true(pv[0].est_ms == 1.5);
	assert_true(isnan(pv[0].started));
	assert_true(pv[0].updated > 0);
	assert_string_equal(pv[0].reason, "exec evaluator killed by signal 11");
	assert_null(pv[0].baseline);
	kp_suitedb_progress_free(pv, n);
	kp_suitedb_progress_release(&pr);
	kp_store_close(s);

	/* A suite database is no run database, and the reverse. */
	assert_int_equal(kp_store_open(&r, p.buf, 0, &err), KP_EUNSUPPORTED);
	assert_non_null(strstr(err.msg, "is not a run database"));
	kp_path_join(&rp, dir, "run.db");
	KP_ASSERT_OK(kp_store_open(&r, rp.buf, KP_STORE_CREATE, &err), &err);
	kp_store_close(r);
	kp_error_clear(&err);
	assert_int_equal(kp_suitedb_open(&s, rp.buf, 0, &err), KP_EUNSUPPORTED);
	assert_non_null(strstr(err.msg, "is not a suite database"));
	/* Read-only opens of a missing file say so. */
	kp_error_clear(&err);
	kp_buf_addch(&p, 'x');
	assert_int_equal(kp_suitedb_open(&s, p.buf, KP_STORE_READONLY, &err), KP_ENOENT);
	assert_non_null(strstr(err.msg, "suite database"));

	kp_buf_release(&p);
	kp_buf_release(&rp);
	kp_test_tmpdir_remove(dir);
}

/*
 * A writer killed inside a transaction leaves a hot journal: a reader (--status, --merge) still
 * opens the database, rolled back to its last commit.
 */
static void test_hot_journal(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf p = KP_BUF_INIT, v = KP_BUF_INIT;
	struct kp_store *s = NULL;
	struct kp_error err = KP_ERROR_INIT;
	pid_t pid;
	int status;

	kp_path_join(&p, dir, "0-of-1.db");
	KP_ASSERT_OK(kp_suitedb_open(&s, p.buf, KP_STORE_CREATE, &err), &err);
	KP_ASSERT_OK(kp_store_meta_set(s, "k", "committed", &err), &err);
	kp_store_close(s);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* a writer that dies with its transaction open and its pages spilled to the file */
		sqlite3 *db;
		char big[4000];
		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		if (sqlite3_open(p.buf, &db) != SQLITE_OK ||
		    sqlite3_exec(db, "PRAGMA cache_size = 1; BEGIN; UPDATE meta SET value = 'lost'", NULL,
		                 NULL, NULL))
			_exit(1);
		for (int i = 0; i < 300; i++) {
			char sql[4200];
			snprintf(sql, sizeof(sql), "INSERT INTO meta VALUES('x%d', '%s')", i, big);
			sqlite3_exec(db, sql, NULL, NULL, NULL);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	kp_buf_addf(&p, "-journal");
	assert_true(kp_path_exists(p.buf)); /* the test made what it means to */
	kp_buf_setlen(&p, p.len - strlen("-journal"));
	KP_ASSERT_OK(kp_suitedb_open(&s, p.buf, KP_STORE_READONLY, &err), &err);
	KP_ASSERT_OK(kp_store_meta_get(s, "k", &v, &err), &err);
	assert_string_equal(v.buf, "committed");
	kp_store_close(s);
	kp_buf_release(&p);
	kp_buf_release(&v);
	kp_test_tmpdir_remove(dir);
}

/* ---- making and opening a suite -------------------------------------------------------------------- */

static void make_suite(const char *dir, const char *name, struct kp_buf *sdir)
{
	struct kp_buf p = KP_BUF_INIT, src = KP_BUF_INIT;
	struct kp_bench_list l;
	struct kp_run_settings rs;
	struct kp_search_budget budget = {0}, sbudget = {.cost = 3.5};
	struct kp_error err = KP_ERROR_INIT;

	kp_path_join(&src, dir, "tasks");
	mkdir(src.buf, 0755);
	native_task(src.buf, "a");
	native_task(src.buf, "b"); /* both are named "gelu" by their task.json */
	copy_file("examples/kernelbench/swish_scale.py", src.buf, "c.py");
	kp_path_join(&p, dir, "list.txt");
	kp_buf_reset(&src);
	kp_buf_adds(&src, "tasks/a\ntasks/b evals=3 llm=replay:r\ntasks/c.py name=swish\n");
	write_file(dir, "list.txt", src.buf);
	kp_bench_list_init(&l);
	KP_ASSERT_OK(kp_bench_list_add_source(&l, p.buf, &err), &err);
	kp_run_settings_init(&rs);
	rs.evaluator = kp_xstrdup("exec:true");
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "suites");
	{
		struct kp_bench_new n = {.root = p.buf,
		                         .name = name,
		                         .label = "list",
		                         .tasks = &l,
		                         .settings = &rs,
		                         .budget = &budget,
		                         .suite_budget = &sbudget,
		                         .baselines = {1, 0},
		                         .argv_text = "bench list.txt"};
		KP_ASSERT_OK(kp_bench_create(&n, sdir, &err), &err);
		kp_error_clear(&err);
		assert_int_equal(kp_bench_create(&n, &src, &err), KP_EEXISTS);
		assert_non_null(strstr(err.msg, "--resume"));
	}
	kp_run_settings_release(&rs);
	kp_bench_list_release(&l);
	kp_buf_release(&p);
	kp_buf_release(&src);
}

static void test_create_open(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf sdir = KP_BUF_INIT, found = KP_BUF_INIT, p = KP_BUF_INIT;
	struct kp_bench *b = NULL;
	struct kp_store *s = NULL;
	struct kp_suitedb_task *tv;
	struct kp_error err = KP_ERROR_INIT;
	size_t n;

	make_suite(dir, "one", &sdir);
	assert_true(kp_bench_is_suite(sdir.buf));
	kp_path_join(&p, dir, "suites");
	KP_ASSERT_OK(kp_bench_resolve(p.buf, "one", &found, &err), &err);
	assert_string_equal(found.buf, sdir.buf);
	assert_int_equal(kp_bench_resolve(p.buf, "two", &found, &err), KP_ENOENT);

	KP_ASSERT_OK(kp_bench_open(&b, sdir.buf, &err), &err);
	assert_string_equal(kp_bench_name(b), "one");
	assert_int_equal(kp_bench_ntasks(b), 3);
	assert_string_equal(kp_bench_settings(b)->evaluator, "exec:true");
	kp_bench_close(b);

	kp_buf_reset(&p);
	kp_path_join(&p, sdir.buf, KP_BENCH_DB);
	KP_ASSERT_OK(kp_suitedb_open(&s, p.buf, KP_STORE_READONLY, &err), &err);
	KP_ASSERT_OK(kp_suitedb_tasks_load(s, &tv, &n, &err), &err);
	assert_int_equal(n, 3);
	assert_string_equal(tv[0].name, "gelu"); /* names: the task's, -2 on a clash, or the list's */
	assert_string_equal(tv[1].name, "gelu-2");
	assert_string_equal(tv[2].name, "swish");
	assert_string_equal(tv[2].kind, "kernelbench");
	assert_string_equal(tv[0].sha256, tv[1].sha256); /* the same content */
	assert_string_not_equal(tv[0].sha256, tv[2].sha256);
	assert_true(tv[0].input_bytes == 8192.0 * 4096 * 4);
	assert_true(isnan(tv[2].input_bytes));
	assert_null(tv[0].settings);
	assert_non_null(strstr(tv[1].settings, "\"evals\":3"));
	assert_non_null(strstr(tv[1].settings, "\"llm\":\"replay:"));
	kp_suitedb_tasks_free(tv, n);
	kp_buf_reset(&p);
	KP_ASSERT_OK(kp_store_meta_get(s, "budget", &p, &err), &err);
	assert_non_null(strstr(p.buf, "\"evals\":20")); /* no limit given: the default */
	kp_buf_reset(&p);
	KP_ASSERT_OK(kp_store_meta_get(s, "suite_budget", &p, &err), &err);
	assert_non_null(strstr(p.buf, "\"cost_usd\":3.5"));
	kp_store_close(s);

	/* Nothing is left beside the suite from building it. */
	kp_buf_reset(&p);
	kp_path_join(&p, dir, "suites");
	kp_buf_adds(&p, "/.one.new-");
	kp_buf_addf(&p, "%ld", (long)getpid());
	assert_false(kp_path_exists(p.buf));
	kp_buf_release(&sdir);
	kp_buf_release(&found);
	kp_buf_release(&p);
	kp_test_tmpdir_remove(dir);
}

/* ---- collecting results ---------------------------------------------------------------------------- */

static void put_row(const char *sdir, int k, int m, long idx, const char *state, const char *reason)
{
	struct kp_buf p = KP_BUF_INIT;
	struct kp_store *s = NULL;
	struct kp_suitedb_progress pr;
	struct kp_error err = KP_ERROR_INIT;

	kp_path_join(&p, sdir, "shards");
	mkdir(p.buf, 0755);
	kp_buf_addf(&p, "/%d-of-%d.db", k, m);
	KP_ASSERT_OK(kp_suitedb_open(&s, p.buf, KP_STORE_CREATE, &err), &err);
	kp_suitedb_progress_init(&pr, idx);
	free(pr.state);
	pr.state = kp_xstrdup(state);
	pr.reason = reason ? kp_xstrdup(reason) : NULL;
	pr.baseline = kp_xstrdup("{\"eager\":{\"median_ms\":2.0},\"torch_compile\":null}");
	KP_ASSERT_OK(kp_suitedb_progress_put(s, &pr, &err), &err);
	kp_suitedb_progress_release(&pr);
	kp_store_close(s);
	kp_buf_release(&p);
}

static void test_collect(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf sdir = KP_BUF_INIT;
	struct kp_suite s;
	struct kp_bench_collected c;
	struct kp_error err = KP_ERROR_INIT;
	json_t *st = NULL;

	make_suite(dir, "c", &sdir);
	/* Task 0 ran in a 2-way sharding (left running) and then finished in a plain one; task 1
	 * failed in shard 1 of 2; task 2 never started. */
	put_row(sdir.buf, 0, 2, 0, "running", NULL);
	put_row(sdir.buf, 0, 1, 0, "finished", NULL);
	put_row(sdir.buf, 1, 2, 1, "failed", "exec evaluator killed by signal 11");
	put_row(sdir.buf, 0, 1, 17, "finished", NULL); /* not in the list: ignored */

	kp_suite_init(&s, NULL);
	KP_ASSERT_OK(kp_bench_collect(sdir.buf, &s, &c, &err), &err);
	assert_string_equal(s.name, "c");
	assert_int_equal(s.n, 3);
	assert_string_equal(s.v[0].name, "gelu");
	assert_int_equal(s.v[0].state, KP_SUITE_FINISHED);
	assert_int_equal(s.v[1].state, KP_SUITE_FAILED);
	assert_string_equal(s.v[1].reason, "exec evaluator killed by signal 11");
	assert_int_equal(s.v[2].state, KP_SUITE_PENDING);
	assert_true(s.v[0].base_ms[KP_SUITE_EAGER] == 2.0); /* the baseline measured, no run */
	assert_string_equal(s.v[0].eager_from, "baseline");
	assert_true(isnan(s.v[0].base_ms[KP_SUITE_COMPILE]));
	assert_int_equal(c.nshards, 3);
	assert_int_equal(c.incomplete, 1);
	assert_int_equal(s.sum.states[KP_SUITE_FAILED], 1);
	kp_bench_collected_release(&c);
	kp_suite_release(&s);

	KP_ASSERT_OK(kp_bench_status(sdir.buf, &st, &err), &err);
	assert_int_equal(json_array_size(json_object_get(st, "tasks")), 3);
	assert_string_equal(kp_json_str(json_array_get(json_object_get(st, "tasks"), 1), "state", ""),
	                    "failed");
	assert_int_equal(json_array_size(json_object_get(st, "shard_databases")), 3);
	json_decref(st);
	kp_buf_release(&sdir);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_lines),     cmocka_unit_test(test_list_errors),
	    cmocka_unit_test(test_list_limits),    cmocka_unit_test(test_sources),
	    cmocka_unit_test(test_shard_and_gpus), cmocka_unit_test(test_suitedb),
	    cmocka_unit_test(test_hot_journal),    cmocka_unit_test(test_create_open),
	    cmocka_unit_test(test_collect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
