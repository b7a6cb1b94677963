/*
 * Unit tests: lib/run — creating, locking, opening and abandoning runs, their settings and the
 * budget merged on resume, a session driven with a scripted programmer and a fake harness (the
 * files beside the database, the read queries), and two runs driven at once in one process.
 */
#include "base/setup.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_search_fakes.h"
#include "kp_test.h"
#include "kernelpro/fault.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/report.h"
#include "kernelpro/run.h"
#include "kernelpro/store.h"

struct fx {
	char *tmp;
	char root[600];
	struct kp_task task;
	struct kp_run_settings set;
};

static struct fx *fx_new(void)
{
	struct fx *x = kp_xcalloc(1, sizeof(*x));
	struct kp_error err = KP_ERROR_INIT;
	x->tmp = kp_test_tmpdir();
	snprintf(x->root, sizeof(x->root), "%s/runs", x->tmp);
	kp_task_init(&x->task);
	KP_ASSERT_OK(kp_task_load(&x->task, kp_test_path("examples/native/gelu"), &err), &err);
	kp_run_settings_init(&x->set);
	x->set.budget.evals = 6;
	return x;
}

static void fx_free(struct fx *x)
{
	kp_task_release(&x->task);
	kp_run_settings_release(&x->set);
	kp_test_tmpdir_remove(x->tmp);
	free(x);
}

static struct kp_run *create(struct fx *x, const char *name)
{
	struct kp_run *r = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run_new n = {x->root, name, &x->task, &x->set};
	KP_ASSERT_OK(kp_run_create(&r, &n, &err), &err);
	return r;
}

static int exists_in(const struct kp_run *r, const char *rel)
{
	struct kp_buf p = KP_BUF_INIT;
	int ok;
	kp_path_join(&p, kp_run_dir(r), rel);
	ok = kp_path_exists(p.buf);
	kp_buf_release(&p);
	return ok;
}

static void test_create_lock_open(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run *r = create(x, "one"), *again = NULL, *ro = NULL;
	struct kp_buf dir = KP_BUF_INIT;
	struct kp_run_new n = {x->root, "one", &x->task, &x->set};

	assert_string_equal(kp_run_name(r), "one");
	assert_true(exists_in(r, KP_RUN_DB) && exists_in(r, "run.lock"));
	/* The same name again is refused, saying how to resume. */
	assert_int_equal(kp_run_create(&again, &n, &err), KP_EEXISTS);
	assert_non_null(strstr(kp_error_msg(&err), "--resume"));
	/* One handle works on a run at a time, even in one process; readers may look meanwhile. */
	kp_error_clear(&err);
	assert_int_equal(kp_run_open(&again, kp_run_dir(r), 0, &err), KP_EEXISTS);
	assert_non_null(strstr(kp_error_msg(&err), "in use"));
	KP_ASSERT_OK(kp_run_open(&ro, kp_run_dir(r), KP_RUN_READONLY, &err), &err);
	assert_string_equal(kp_run_name(ro), "one");
	kp_run_close(ro);
	kp_run_close(r);
	/* By name under the root, or by path; an unknown one says where it looked. */
	KP_ASSERT_OK(kp_run_resolve(x->root, "one", &dir, &err), &err);
	KP_ASSERT_OK(kp_run_open(&again, dir.buf, 0, &err), &err);
	kp_run_close(again);
	kp_buf_reset(&dir);
	kp_error_clear(&err);
	assert_int_equal(kp_run_resolve(x->root, "nope", &dir, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "kernelpro runs"));
	/* A name is one path component. */
	n.name = "../escape";
	kp_error_clear(&err);
	assert_int_equal(kp_run_create(&again, &n, &err), KP_EINVAL);
	kp_buf_release(&dir);
	fx_free(x);
}

static void test_abandon_leaves_nothing(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run *r = create(x, NULL); /* TASK-STAMP */
	long session;

	assert_non_null(strstr(kp_run_name(r), "gelu-"));
	kp_run_abandon(r);
	assert_false(kp_path_exists(x->root)); /* the root it made, too */
	/* A run in which a session began is kept. */
	r = create(x, "kept");
	KP_ASSERT_OK(kp_store_session_begin(kp_run_store(r), "test", &session, &err), &err);
	kp_run_abandon(r);
	assert_true(kp_path_exists(x->root));
	fx_free(x);
}

static void test_settings_and_budget(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run *r;
	struct kp_search_budget more = {.evals = 9, .tokens = 123};
	const struct kp_run_settings *s;
	struct kp_task t;
	struct kp_buf dir = KP_BUF_INIT;

	x->set.params.algo = KP_SEARCH_GREEDY;
	x->set.budget.wall_s = 60;
	x->set.orchestration = KP_ORCH_REACTIVE;
	x->set.tool_rounds = 2;
	x->set.family = kp_xstrdup("pointwise");
	x->set.llm = kp_xstrdup("replay:/somewhere");
	x->set.evaluator = kp_xstrdup("exec:sh judge.sh");
	r = create(x, "s");
	kp_buf_adds(&dir, kp_run_dir(r));
	kp_run_close(r);
	KP_ASSERT_OK(kp_run_open(&r, dir.buf, 0, &err), &err);
	s = kp_run_settings(r);
	assert_int_equal(s->params.algo, KP_SEARCH_GREEDY);
	assert_int_equal(s->budget.evals, 6);
	assert_true(s->budget.wall_s == 60);
	assert_int_equal(s->orchestration, KP_ORCH_REACTIVE);
	assert_int_equal(s->tool_rounds, 2);
	assert_string_equal(s->family, "pointwise");
	assert_string_equal(s->llm, "replay:/somewhere");
	assert_string_equal(s->evaluator, "exec:sh judge.sh");
	/* Only the limits named are replaced, and later sessions see them. */
	KP_ASSERT_OK(kp_run_set_budget(r, &more, KP_RUN_LIMIT_EVALS, &err), &err);
	kp_run_close(r);
	KP_ASSERT_OK(kp_run_open(&r, dir.buf, 0, &err), &err);
	s = kp_run_settings(r);
	assert_int_equal(s->budget.evals, 9);
	assert_int_equal(s->budget.tokens, 0);
	assert_true(s->budget.wall_s == 60);
	/* The task from where it was recorded; a task that moved is given anew. */
	kp_task_init(&t);
	KP_ASSERT_OK(kp_run_load_task(r, NULL, &t, &err), &err);
	assert_string_equal(t.name, "gelu");
	kp_task_release(&t);
	assert_int_equal(kp_run_load_task(r, "/no/such/task", &t, &err), KP_ENOENT);
	assert_non_null(strstr(kp_error_msg(&err), "give its new place"));
	kp_run_close(r);
	kp_buf_release(&dir);
	fx_free(x);
}

/* ---- creating a run: all or nothing ----------------------------------------------------------------- */

/* The entries of dir (hidden ones too), sorted, one per line; "" when it is missing or empty. */
static void list_dir(const char *dir, struct kp_buf *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	kp_buf_reset(out);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			kp_buf_addf(out, "%s\n", de->d_name);
	if (d)
		closedir(d);
}

static int try_create(struct fx *x, const char *name, struct kp_run **r, struct kp_error *err)
{
	struct kp_run_new n = {x->root, name, &x->task, &x->set};
	kp_error_clear(err);
	return kp_run_create(r, &n, err);
}

/* Issue 21: newline and ESC were taken in names (and printed raw); a 300-character name was cut. */
static void test_name_rules(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run *r = NULL;
	char longname[KP_RUN_NAME_MAX + 2];
	static const char *const bad[] = {"a\nb", "red\x1b[31m", "tab\there", "del\x7f"};

	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		assert_int_equal(try_create(x, bad[i], &r, &err), KP_EINVAL);
		assert_non_null(strstr(kp_error_msg(&err), "control character"));
		assert_null(strchr(kp_error_msg(&err), '\x1b')); /* the message shows it escaped */
		assert_null(strchr(kp_error_msg(&err), '\n'));
	}
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(try_create(x, longname, &r, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "at most"));
	assert_false(kp_path_exists(x->root)); /* nothing made */
	longname[KP_RUN_NAME_MAX] = '\0'; /* the longest allowed, whole */
	KP_ASSERT_OK(try_create(x, longname, &r, &err), &err);
	assert_string_equal(kp_run_name(r), longname);
	kp_run_close(r);
	/* A UTF-8 name is fine. */
	KP_ASSERT_OK(try_create(x, "gelu-\xc3\xa9t\xc3\xa9", &r, &err), &err);
	kp_run_close(r);
	fx_free(x);
}

/* A create that failed (a full disk, an injected fault) leaves neither the run nor any trace of it. */
static void test_create_faults_leave_nothing(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf ls = KP_BUF_INIT;
	static const char *const kinds[] = {"sqlite-write", "file-write"};
	char plan[64];

	for (size_t k = 0; k < KP_ARRAY_SIZE(kinds); k++) {
		int faulted = 0;
		for (int n = 1;; n++) {
			struct kp_run *r = NULL;
			int rc;
			snprintf(plan, sizeof(plan), "%s:%d", kinds[k], n);
			KP_ASSERT_OK(kp_fault_plan(plan, &err), &err);
			rc = try_create(x, "f", &r, &err);
			KP_ASSERT_OK(kp_fault_plan("", &err), &err);
			if (!rc) {
				kp_run_abandon(r);
				break;
			}
			faulted++;
			assert_non_null(strstr(kp_error_msg(&err), "injected fault"));
			list_dir(x->root, &ls);
			if (ls.len)
				fail_msg("%s: a failed create left '%s' in the runs directory", plan, ls.buf);
			/* The name is free: the run can be created (and resumed) at once. */
			KP_ASSERT_OK(try_create(x, "f", &r, &err), &err);
			kp_run_close(r);
			KP_ASSERT_OK(kp_rm_rf(x->root, &err), &err);
		}
		if (faulted < 1)
			fail_msg("no %s operation while creating a run: the test tests nothing", kinds[k]);
	}
	kp_buf_release(&ls);
	fx_free(x);
}

/* A directory made by a kernelpro killed while it created the run, before creation was atomic. */
static void make_debris(struct fx *x, const char *name, int db)
{
	struct kp_buf p = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_store *s;

	kp_path_join(&p, x->root, name);
	KP_ASSERT_OK(kp_mkdir_p(p.buf, 0755, &err), &err);
	kp_buf_adds(&p, "/run.lock");
	KP_ASSERT_OK(kp_write_file_atomic(p.buf, "", 0, &err), &err);
	kp_buf_setlen(&p, p.len - strlen("run.lock"));
	kp_buf_adds(&p, KP_RUN_DB);
	if (db == 1) /* killed right after SQLite made the file */
		KP_ASSERT_OK(kp_write_file_atomic(p.buf, "", 0, &err), &err);
	if (db == 2) { /* killed before the settings were committed */
		KP_ASSERT_OK(kp_store_open(&s, p.buf, KP_STORE_CREATE, &err), &err);
		kp_store_close(s);
	}
	kp_buf_release(&p);
}

/* Issue 21: a run half-created was a dead end: --resume refused it, and so did a new run of that name. */
static void test_half_created_run_is_no_dead_end(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf dir = KP_BUF_INIT;
	struct kp_run *r = NULL;
	char name[16];

	for (int db = 0; db < 3; db++) {
		snprintf(name, sizeof(name), "half%d", db);
		make_debris(x, name, db);
		kp_buf_reset(&dir);
		kp_path_join(&dir, x->root, name);
		/* Resuming it says what happened and how to go on ... */
		if (db) {
			kp_error_clear(&err);
			assert_true(kp_run_open(&r, dir.buf, 0, &err) < 0);
			assert_non_null(strstr(kp_error_msg(&err), "never completely created"));
			assert_non_null(strstr(kp_error_msg(&err), "--name"));
		}
		/* ... and a new run of that name replaces it. */
		KP_ASSERT_OK(try_create(x, name, &r, &err), &err);
		kp_run_close(r);
		KP_ASSERT_OK(kp_run_open(&r, dir.buf, 0, &err), &err);
		kp_run_close(r);
	}
	/* A directory that is not a run's is never replaced. */
	kp_buf_reset(&dir);
	kp_path_join(&dir, x->root, "mine");
	KP_ASSERT_OK(kp_mkdir_p(dir.buf, 0755, &err), &err);
	kp_buf_adds(&dir, "/notes.txt");
	KP_ASSERT_OK(kp_write_file_atomic(dir.buf, "keep", 4, &err), &err);
	assert_int_equal(try_create(x, "mine", &r, &err), KP_EEXISTS);
	assert_non_null(strstr(kp_error_msg(&err), "not a run"));
	assert_true(kp_path_exists(dir.buf));
	kp_buf_release(&dir);
	fx_free(x);
}

/*
 * kill -9 at any moment of creating runs: every run in the directory is whole (it opens, with its
 * task), what a killed creation left behind is hidden and swept by the next create, and the names
 * stay usable.
 */
static void test_create_killed_anywhere(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf ls = KP_BUF_INIT, p = KP_BUF_INIT;
	struct kp_run *r = NULL;
	int kills = 0;

	for (int round = 0; round < 24; round++) {
		int status;
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			char name[32];
			for (int i = 0;; i++) {
				snprintf(name, sizeof(name), "k%d-%d", round, i);
				if (try_create(x, name, &r, &err))
					_exit(3);
				kp_run_close(r);
			}
		}
		usleep((useconds_t)(300 + (round * 7919) % 60000)); /* spread over several creations */
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		if (WIFEXITED(status))
			fail_msg("the creating process failed before it was killed");
		kills++;
	}
	assert_int_equal(kills, 24);
	list_dir(x->root, &ls);
	for (char *line = ls.buf, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		if (line[0] == '.')
			continue; /* a creation in progress when killed: hidden, swept below */
		kp_buf_reset(&p);
		kp_path_join(&p, x->root, line);
		kp_error_clear(&err);
		if (kp_run_open(&r, p.buf, 0, &err))
			fail_msg("run '%s' is half made after kill -9: %s", line, kp_error_msg(&err));
		assert_non_null(kp_run_settings(r)->evaluator);
		kp_run_close(r);
	}
	/* The next create sweeps what the killed ones left. */
	KP_ASSERT_OK(try_create(x, "after", &r, &err), &err);
	kp_run_close(r);
	list_dir(x->root, &ls);
	assert_null(strstr(ls.buf, ".kp-new-"));
	kp_buf_release(&ls);
	kp_buf_release(&p);
	fx_free(x);
}

/* ---- a run's identity: its task and its evaluator -------------------------------------------------- */

/* Copies examples/native/NAME's task.json and reference.cu into DIR; `edit` replaces the first "0.5". */
static void copy_task(const char *name, const char *dir, const char *edit)
{
	static const char *const files[] = {"task.json", "reference.cu"};
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_mkdir_p(dir, 0755, &err), &err);
	for (size_t i = 0; i < KP_ARRAY_SIZE(files); i++) {
		struct kp_buf from = KP_BUF_INIT, to = KP_BUF_INIT, b = KP_BUF_INIT;
		char *at;
		kp_buf_addf(&from, "examples/native/%s/%s", name, files[i]);
		KP_ASSERT_OK(kp_read_file(kp_test_path(from.buf), 0, &b, &err), &err);
		if (edit && i == 1) {
			at = strstr(b.buf, "0.5");
			assert_non_null(at);
			memcpy(at, edit, 3);
		}
		kp_path_join(&to, dir, files[i]);
		KP_ASSERT_OK(kp_write_file_atomic(to.buf, b.buf, b.len, &err), &err);
		kp_buf_release(&from);
		kp_buf_release(&to);
		kp_buf_release(&b);
	}
}

/* Issue 21: --resume took a different task silently, and another evaluator when --evaluator was omitted. */
static void test_resume_identity(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run *r;
	struct kp_task t, other;
	struct kp_buf dir = KP_BUF_INIT, where = KP_BUF_INIT, moved = KP_BUF_INIT, swish = KP_BUF_INIT;
	struct fake_prog p;
	struct fake_eval e;
	struct kp_run_session s;
	struct kp_search_outcome out;

	kp_path_join(&where, x->tmp, "task");
	kp_path_join(&moved, x->tmp, "moved");
	kp_path_join(&swish, x->tmp, "swish");
	copy_task("gelu", where.buf, NULL);
	kp_task_release(&x->task);
	KP_ASSERT_OK(kp_task_load(&x->task, where.buf, &err), &err);
	x->set.evaluator = kp_xstrdup("exec:sh judge.sh");
	r = create(x, "id");
	kp_buf_adds(&dir, kp_run_dir(r));
	kp_run_close(r);
	KP_ASSERT_OK(kp_run_open(&r, dir.buf, 0, &err), &err);

	/* The task changed where it is: refused, saying what differs and what to do. */
	copy_task("gelu", where.buf, "0.6");
	kp_task_init(&t);
	assert_int_equal(kp_run_load_task(r, NULL, &t, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "changed since"));
	assert_non_null(strstr(kp_error_msg(&err), "new run"));
	kp_task_release(&t);
	/* Another task given as the moved one: refused. */
	copy_task("swish", swish.buf, NULL);
	kp_error_clear(&err);
	assert_int_equal(kp_run_load_task(r, swish.buf, &t, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "not the task"));
	kp_task_release(&t);
	/* The same task moved is taken, and its new place remembered. */
	copy_task("gelu", moved.buf, NULL);
	KP_ASSERT_OK(kp_run_load_task(r, moved.buf, &t, &err), &err);
	kp_task_release(&t);
	kp_run_close(r);
	KP_ASSERT_OK(kp_run_open(&r, dir.buf, 0, &err), &err);
	KP_ASSERT_OK(kp_run_load_task(r, NULL, &t, &err), &err);
	assert_non_null(strstr(t.path, "moved"));

	/* A session with another task, or another evaluator than the run's, is refused before any request. */
	fake_prog_init(&p, NULL, 0);
	fake_eval_init(&e);
	memset(&s, 0, sizeof(s));
	kp_task_init(&other);
	KP_ASSERT_OK(kp_task_load(&other, swish.buf, &err), &err);
	s.task = &other;
	s.programmer = &p.base;
	s.evaluator = &e.base;
	assert_int_equal(kp_run_optimize(r, &s, &out, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "not the task"));
	s.task = &t;
	s.evaluator = NULL;
	s.evaluator_spec = "harness";
	kp_error_clear(&err);
	assert_int_equal(kp_run_optimize(r, &s, &out, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "exec:sh judge.sh"));
	assert_non_null(strstr(kp_error_msg(&err), "omit --evaluator"));
	assert_int_equal(p.calls, 0);
	assert_int_equal(kp_store_session_count(kp_run_store(r)), 0);
	kp_task_release(&other);
	kp_task_release(&t);
	kp_run_close(r);
	kp_buf_release(&dir);
	kp_buf_release(&where);
	kp_buf_release(&moved);
	kp_buf_release(&swish);
	fx_free(x);
}

static const struct step story[] = {
    {"compile_error", 0}, {"correct", 1.5}, {"correct", 2.0},
    {"wrong_output", 50}, {"correct", 2.6}, {"correct", 1.1},
};

/* One session with the fakes; the run's own budget. */
static int drive(struct kp_run *r, const struct kp_task *task, struct fake_prog *p, struct fake_eval *e,
		 struct kp_search_outcome *out, struct kp_error *err)
{
	struct kp_run_session s;
	memset(&s, 0, sizeof(s));
	s.task = task;
	s.programmer = &p->base;
	s.evaluator = &e->base;
	s.argv_text = "t_run";
	return kp_run_optimize(r, &s, out, err);
}

static void test_session_files_and_queries(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run *r = create(x, "q");
	struct fake_prog p;
	struct fake_eval e;
	struct kp_search_outcome out;
	struct kp_buf path = KP_BUF_INIT, b = KP_BUF_INIT;
	json_t *sum, *file, *tree, *node, *list;
	char want[64];

	fake_prog_init(&p, story, KP_ARRAY_SIZE(story));
	fake_eval_init(&e);
	e.gpu_s = 0.5;
	KP_ASSERT_OK(drive(r, &x->task, &p, &e, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(out.evals, 6);
	/* summary.json is the summary without "dir"; best.cu is the best version's source. */
	KP_ASSERT_OK(kp_run_summary(r, &sum, &err), &err);
	assert_string_equal(kp_json_str(sum, "dir", ""), kp_run_dir(r));
	assert_string_equal(kp_json_str(sum, "status", ""), "finished");
	assert_int_equal(kp_json_int(json_object_get(sum, "used"), "evaluations", 0), 6);
	/* The GPU slot's busy time: the reference's and 6 evaluations', and its share of the wall time. */
	assert_true(fabs(kp_json_num(json_object_get(sum, "used"), "gpu_busy_s", 0) - 7 * 0.5) < 1e-9);
	assert_true(fabs(kp_json_num(json_object_get(sum, "used"), "gpu_busy_share", 0) -
			 3.5 / kp_json_num(json_object_get(sum, "used"), "elapsed_s", 1)) < 1e-6);
	assert_int_equal(kp_json_int(json_object_get(sum, "outcomes"), "wrong_output", 0), 1);
	assert_string_equal(kp_json_str(json_object_get(sum, "best"), "file", ""), "best.cu");
	assert_true(fabs(kp_json_num(json_object_get(sum, "best"), "speedup", 0) - 2.6) < 1e-9);
	kp_path_join(&path, kp_run_dir(r), "summary.json");
	KP_ASSERT_OK(kp_json_load_file(path.buf, 1 << 20, &file, &err), &err);
	assert_null(json_object_get(file, "dir"));
	assert_int_equal(kp_json_int(json_object_get(file, "best"), "node", 0),
			 kp_json_int(json_object_get(sum, "best"), "node", -1));
	assert_true(json_equal(json_object_get(file, "outcomes"), json_object_get(sum, "outcomes")));
	kp_buf_reset(&path);
	kp_path_join(&path, kp_run_dir(r), "best.cu");
	KP_ASSERT_OK(kp_read_file(path.buf, 0, &b, &err), &err);
	snprintf(want, sizeof(want), "speed=%.17g", 2.6);
	assert_non_null(strstr(b.buf, want));
	/* A lost copy in candidates/ comes back from the database. */
	assert_true(exists_in(r, "candidates/2.cu"));
	kp_buf_reset(&path);
	kp_path_join(&path, kp_run_dir(r), "candidates/2.cu");
	assert_int_equal(unlink(path.buf), 0);
	KP_ASSERT_OK(kp_run_write_files(r, &err), &err);
	assert_true(exists_in(r, "candidates/2.cu"));
	/* The tree and one version in full, with the exchange that made it. */
	KP_ASSERT_OK(kp_run_tree(r, &tree, &err), &err);
	assert_int_equal(json_array_size(tree), 7);
	assert_true(json_is_null(json_object_get(json_array_get(tree, 0), "parent")));
	KP_ASSERT_OK(kp_run_node(r, 2, &node, &err), &err);
	assert_string_equal(kp_json_str(node, "outcome", ""), "compile_error");
	assert_string_equal(kp_json_str(node, "lang", ""), "cuda");
	assert_non_null(strstr(kp_json_str(node, "log", ""), "is undefined"));
	assert_int_equal(json_array_size(json_object_get(node, "exchanges")), 1);
	assert_non_null(strstr(
	    kp_json_str(json_array_get(json_object_get(node, "exchanges"), 0), "prompt", ""), "mode="));
	json_decref(node);
	assert_int_equal(kp_run_node(r, 99, &node, &err), KP_ENOENT);
	assert_null(node);
	/* The list of runs holds it. */
	KP_ASSERT_OK(kp_run_list(x->root, &list, &err), &err);
	assert_int_equal(json_array_size(list), 1);
	assert_string_equal(kp_json_str(json_array_get(list, 0), "run", ""), "q");
	json_decref(list);
	json_decref(node);
	json_decref(tree);
	json_decref(file);
	json_decref(sum);
	kp_run_close(r);
	kp_buf_release(&path);
	kp_buf_release(&b);
	fx_free(x);
}

/* Profiling on demand, as the user sees it: the profiles counted in summary.json, the best version profiled,
 * and a version never expanded shown as not profiled by `show` (kp_run_node) and by the report. */
static const struct step ranked[] = {
    {"correct", 2.0}, {"correct", 1.5}, {"correct", 1.2},
    {"correct", 3.0}, {"correct", 1.1}, {"correct", 3.5},
};

static void test_unprofiled_versions_shown(void **state)
{
	struct fx *x = fx_new();
	struct kp_error err = KP_ERROR_INIT;
	struct kp_run *r;
	struct fake_prog p;
	struct fake_eval e;
	struct kp_search_outcome out;
	struct kp_buf html = KP_BUF_INIT;
	json_t *sum, *used, *node, *view;
	long unprofiled = 0;

	x->set.params.algo = KP_SEARCH_GREEDY; /* the slower versions are never expanded */
	r = create(x, "lazy");
	fake_prog_init(&p, ranked, KP_ARRAY_SIZE(ranked));
	fake_eval_init(&e);
	fake_eval_lazy(&e);
	e.gpu_s = 0.5;
	KP_ASSERT_OK(drive(r, &x->task, &p, &e, &out, &err), &err);
	KP_ASSERT_OK(kp_run_summary(r, &sum, &err), &err);
	used = json_object_get(sum, "used");
	assert_int_equal(kp_json_int(json_object_get(used, "profiles"), "on_demand", -1) +
	                     kp_json_int(json_object_get(used, "profiles"), "final", -1),
	                 e.profiles);
	assert_int_equal(kp_json_int(json_object_get(used, "profiles"), "speculative", -1), 0);
	/* Profiles are GPU time: the reference, 6 evaluations and each profile at 0.5 s. */
	assert_true(fabs(kp_json_num(used, "gpu_busy_s", 0) - (7 + e.profiles) * 0.5) < 1e-9);
	assert_true(json_is_true(json_object_get(json_object_get(sum, "best"), "profiled")));
	for (long id = 2; id <= 7 && !unprofiled; id++) {
		KP_ASSERT_OK(kp_run_node(r, id, &node, &err), &err);
		if (json_is_false(json_object_get(node, "profiled"))) {
			unprofiled = id;
			assert_null(kp_json_str(node, "feedback", NULL));
		}
		json_decref(node);
	}
	assert_true(unprofiled > 0);
	KP_ASSERT_OK(kp_run_node(r, out.best_node, &node, &err), &err);
	assert_true(json_is_true(json_object_get(node, "profiled")));
	assert_non_null(strstr(kp_json_str(node, "feedback", ""), "occupancy"));
	json_decref(node);
	/* The report says it rather than showing an empty diagnosis. */
	KP_ASSERT_OK(kp_run_view(kp_run_dir(r), &view, &err), &err);
	KP_ASSERT_OK(kp_report_run_html(view, &html, &err), &err);
	assert_non_null(strstr(html.buf, "not profiled: the search never expanded this version"));
	json_decref(view);
	json_decref(sum);
	kp_buf_release(&html);
	kp_run_close(r);
	fx_free(x);
}

/* ---- many runs in one process ----------------------------------------------------------------------- */

struct driver {
	struct kp_run *run;
	const struct kp_task *task;
	struct fake_prog prog;
	struct fake_eval eval;
	struct kp_search_outcome out;
	int rc;
	struct kp_error err;
};

static void *drive_thread(void *arg)
{
	struct driver *d = arg;
	d->rc = drive(d->run, d->task, &d->prog, &d->eval, &d->out, &d->err);
	return NULL;
}

static void test_two_runs_at_once(void **state)
{
	struct fx *x = fx_new();
	struct driver d[2];
	pthread_t th[2];
	json_t *list;
	struct kp_error err = KP_ERROR_INIT;

	memset(d, 0, sizeof(d));
	for (int i = 0; i < 2; i++) {
		x->set.budget.evals = 4 + i;
		d[i].run = create(x, i ? "b" : "a");
		d[i].task = &x->task;
		fake_prog_init(&d[i].prog, NULL, 0);
		fake_eval_init(&d[i].eval);
		d[i].prog.sleep_ms = 2;
		d[i].eval.sleep_ms = 2;
		assert_int_equal(pthread_create(&th[i], NULL, drive_thread, &d[i]), 0);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		KP_ASSERT_OK(d[i].rc, &d[i].err);
		assert_int_equal(d[i].out.evals, 4 + i);
		assert_int_equal(d[i].eval.reference_calls, 1);
		assert_true(kp_store_counter(kp_run_store(d[i].run), "evaluations") == 4 + i);
		assert_true(exists_in(d[i].run, "best.cu"));
		kp_run_close(d[i].run);
	}
	KP_ASSERT_OK(kp_run_list(x->root, &list, &err), &err);
	assert_int_equal(json_array_size(list), 2);
	assert_int_equal(kp_json_int(json_object_get(json_array_get(list, 1), "used"), "evaluations", 0), 5);
	json_decref(list);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_create_lock_open),
	    cmocka_unit_test(test_abandon_leaves_nothing),
	    cmocka_unit_test(test_settings_and_budget),
	    cmocka_unit_test(test_session_files_and_queries),
	    cmocka_unit_test(test_unprofiled_versions_shown),
	    cmocka_unit_test(test_two_runs_at_once),
	    cmocka_unit_test(test_name_rules),
	    cmocka_unit_test(test_create_faults_leave_nothing),
	    cmocka_unit_test(test_half_created_run_is_no_dead_end),
	    cmocka_unit_test(test_create_killed_anywhere),
	    cmocka_unit_test(test_resume_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
