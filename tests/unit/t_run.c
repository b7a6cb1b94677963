/*
 * Unit tests: lib/run — creating, locking, opening and abandoning runs, their settings and the
 * budget merged on resume, a session driven with a scripted programmer and a fake harness (the
 * files beside the database, the read queries), and two runs driven at once in one process.
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "kp_search_fakes.h"
#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/run.h"

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
	KP_ASSERT_OK(drive(r, &x->task, &p, &e, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(out.evals, 6);
	/* summary.json is the summary without "dir"; best.cu is the best version's source. */
	KP_ASSERT_OK(kp_run_summary(r, &sum, &err), &err);
	assert_string_equal(kp_json_str(sum, "dir", ""), kp_run_dir(r));
	assert_string_equal(kp_json_str(sum, "status", ""), "finished");
	assert_int_equal(kp_json_int(json_object_get(sum, "used"), "evaluations", 0), 6);
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
	    cmocka_unit_test(test_create_lock_open),    cmocka_unit_test(test_abandon_leaves_nothing),
	    cmocka_unit_test(test_settings_and_budget), cmocka_unit_test(test_session_files_and_queries),
	    cmocka_unit_test(test_two_runs_at_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
