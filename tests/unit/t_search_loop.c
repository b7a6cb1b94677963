/*
 * Unit tests: the optimize loop end to end on the CPU with a scripted programmer and a fake harness —
 * repair then refinements, budgets, resume (after a clean stop, with a saved-but-unevaluated
 * candidate, and after kill -9), parallel requests never timing two candidates at once, search
 * memory reaching the prompts, a failing candidate never becoming best. Profiling on demand:
 * t_search_profile.c; the fixture both use: search_loop_fixture.h.
 */
#include "base/setup.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_search_fakes.h"
#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/search.h"
#include "search_loop_fixture.h"

/* ---- counting through the store's queries ------------------------------------------------------------- */

/* Nodes: all (outcome -2), not yet evaluated (-1), or evaluated with that outcome. */
static long count_nodes(struct kp_store *s, int outcome)
{
	struct kp_node_row *rows = NULL;
	struct kp_error err = KP_ERROR_INIT;
	size_t n = 0;
	long c = 0;
	KP_ASSERT_OK(kp_store_nodes_load(s, &rows, &n, &err), &err);
	for (size_t i = 0; i < n; i++)
		c += outcome == -2 || (outcome == -1 ? !rows[i].evaluated : rows[i].evaluated && (int)rows[i].outcome == outcome);
	free(rows);
	return c;
}

struct mem_count {
	int kind, outcome; /* outcome -1: any */
	long n;
};

static int count_mem(const struct kp_store_memory_row *r, void *ud)
{
	struct mem_count *m = ud;
	m->n += (int)r->kind == m->kind && (m->outcome < 0 || (int)r->outcome == m->outcome);
	return 0;
}

static long count_memory(struct kp_store *s, int kind, int outcome)
{
	struct mem_count m = {kind, outcome, 0};
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(kp_store_memory_each(s, NULL, count_mem, &m, &err), &err);
	return m.n;
}

/* Findings saved over every node's evaluation. */
static long count_findings(struct kp_store *s)
{
	struct kp_node_row *rows = NULL;
	struct kp_error err = KP_ERROR_INIT;
	size_t n = 0;
	long c = 0;
	KP_ASSERT_OK(kp_store_nodes_load(s, &rows, &n, &err), &err);
	for (size_t i = 0; i < n; i++) {
		struct kp_buf f = KP_BUF_INIT;
		json_t *a;
		KP_ASSERT_OK(kp_store_eval_text(s, rows[i].id, NULL, NULL, &f, &err), &err);
		a = json_loads(f.len ? f.buf : "[]", 0, NULL);
		c += (long)json_array_size(a);
		json_decref(a);
		kp_buf_release(&f);
	}
	free(rows);
	return c;
}

/* ---- tests ----------------------------------------------------------------------------------------- */

static const struct step story[] = {
	{"compile_error", 0}, /* initial: does not compile */
	{"correct", 1.5},     /* the repair */
	{"correct", 2.0},
	{"wrong_output", 50}, /* fast but wrong: must never be best */
	{"correct", 2.6},
	{"correct", 2.2},
	{"correct", 1.1},
	{"correct", 2.7},
};

static void test_end_to_end(void **state)
{
	struct fx *x = fx_new(story, KP_ARRAY_SIZE(story));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;

	x->run.budget.evals = 8;
	x->run.params.refine_k = 1; /* a narrow root, so the failed first version is the one to expand */
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(out.evals, 8);
	assert_int_equal(x->eval.reference_calls, 1);
	assert_int_equal(x->eval.evals, 8);
	assert_true(kp_store_counter(x->s, "evaluations") == 8);
	assert_true(kp_store_counter(x->s, "tokens_in") + kp_store_counter(x->s, "tokens_out") == 800);
	/* The failing initial version was repaired, with the compile log in the debug prompt. */
	assert_true(x->prog.debug_calls >= 1);
	assert_non_null(strstr(x->prog.last_debug_log, "is undefined"));
	assert_true(x->prog.optimize_calls >= 1);
	/* The best is the fastest correct candidate, never the wrong one at 50x. */
	assert_true(out.best_speedup > 2.0 && out.best_speedup < 3.0);
	assert_int_equal(count_nodes(x->s, KP_OUTCOME_WRONG_OUTPUT), 1);
	/* Every prompt and reply is saved; the compile fix went into memory. */
	assert_int_equal(kp_store_exchange_count(x->s, 0), 8);
	assert_int_equal(count_memory(x->s, KP_MEM_COMPILE_FIX, KP_MEMO_WORKED), 1);
	assert_int_equal(count_memory(x->s, KP_MEM_CODE_PATH, -1), 1); /* the code search */
	assert_true(count_findings(x->s) >= 2);
	/* The hooks heard of every version and every evaluation (and the end); lib/run keeps the files with them. */
	assert_int_equal(x->candidates_seen, 8);
	assert_int_equal(x->evaluated_seen, 8 + 1);
	fx_free(x);
}

static void test_memory_reaches_prompts(void **state)
{
	static const struct step s[] = {{"correct", 1.5}, {"correct", 1.6}, {"correct", 1.7}, {"correct", 1.8}};
	struct fx *x = fx_new(s, KP_ARRAY_SIZE(s));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	x->run.budget.evals = 4;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	/* The reference's recommendation was tried; later prompts say so, and name the API that worked. */
	assert_non_null(strstr(x->prog.last_memory, "load float4 per thread"));
	assert_non_null(strstr(x->prog.last_memory, "float4 worked"));
	assert_true(strlen(x->prog.last_memory) <= (size_t)x->run.params.memory_bytes);
	fx_free(x);
}

static void test_resume_after_stop(void **state)
{
	struct fx *x = fx_new(story, KP_ARRAY_SIZE(story));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	volatile sig_atomic_t stop = 0;

	x->run.budget.evals = 6;
	x->run.stop = &stop;
	x->eval.stop = &stop;
	x->eval.stop_after = 2;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_STOPPED);
	assert_int_equal(out.evals, 2);
	/* A new session with the same database continues where it stopped. */
	stop = 0;
	x->eval.stop_after = 0;
	kp_store_close(x->s);
	fx_open(x);
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(out.evals, 4);
	assert_true(kp_store_counter(x->s, "evaluations") == 6);
	assert_int_equal(x->eval.reference_calls, 1); /* Stage 1 once per run */
	assert_int_equal(kp_store_session_count(x->s), 2);
	/* A larger budget on resume extends the run. */
	x->run.budget.evals = 7;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.evals, 1);
	fx_free(x);
}

static void test_resume_evaluates_saved_candidate_first(void **state)
{
	struct fx *x = fx_new(story, KP_ARRAY_SIZE(story));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_node_row r;

	x->run.budget.evals = 2;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	/* As if a session died right after committing a candidate, before evaluating it. */
	kp_node_row_init(&r);
	r.parent = 1;
	r.kind = KP_NODE_INITIAL;
	r.depth = 1;
	KP_ASSERT_OK(kp_store_node_insert(x->s, &r, "cuda", "outcome=correct\nspeed=3.5\n", &err), &err);
	x->eval.evals = 0;
	x->run.budget.evals = 4;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(x->eval.first_id, r.id);
	assert_true(fabs(out.best_speedup - 3.5) < 1e-9);
	assert_int_equal(count_nodes(x->s, -1), 0);
	fx_free(x);
}

static void test_parallel_requests_single_gpu(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	x->run.params.parallel = 3;
	x->prog.sleep_ms = 20;
	x->eval.sleep_ms = 10;
	x->eval.prog = &x->prog;
	x->run.budget.evals = 12;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(x->eval.evals, 12);
	assert_true(kp_store_counter(x->s, "evaluations") == 12);
	/* Several requests were in flight at once, and while the GPU evaluated. */
	assert_true(x->prog.max_in_flight >= 2);
	assert_true(x->prog.max_in_flight <= 3);
	assert_true(x->eval.overlap_seen);
	/* No candidate generated beyond the evaluation budget. */
	assert_int_equal(count_nodes(x->s, -2), 13);
	fx_free(x);
}

/*
 * Issue 21: with --parallel N, generation ran far ahead of evaluation (31 versions generated while
 * 9 were evaluated; one parent got 8 refinements before any was evaluated). A fast programmer and a
 * slow evaluator: at most N versions wait for evaluation, and no parent holds more unevaluated
 * children than its widening limit.
 */
static void test_parallel_lookahead_bounded(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;

	x->run.params.parallel = 4;
	x->prog.sleep_ms = 1;
	x->eval.sleep_ms = 15;
	x->run.budget.evals = 16;
	x->check_lookahead = 1;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(x->eval.evals, 16);
	assert_true(x->max_unevaluated >= 1);
	if (x->max_unevaluated > 4)
		fail_msg("%d versions waited for evaluation at once (--parallel 4)", x->max_unevaluated);
	assert_int_equal(x->over_width, 0);
	fx_free(x);
}

/* With parallel > 1 and an evaluator that allows it, evaluations run on a GPU thread: the loop commits
 * the programmer's replies meanwhile and has the evaluator prepare them before their turn, and the
 * lookahead bound still holds. */
static void test_pipelined_evaluation(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;

	fake_eval_pipelined(&x->eval, 300);
	x->eval.gpu_s = 0.25;
	x->run.params.parallel = 3;
	x->prog.sleep_ms = 2;
	x->run.budget.evals = 10;
	x->check_lookahead = 1;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(x->eval.evals, 10);
	assert_int_equal(x->eval.prepared, 10);         /* every candidate, as it was saved */
	assert_int_equal(x->eval.unprepared_evals, 0); /* and before its evaluation */
	/* A later candidate was saved and prepared while the GPU was busy with most evaluations (the last
	 * ones have none: the budget is spoken for). */
	if (x->eval.ahead_seen < 6)
		fail_msg("only %d of 10 evaluations overlapped the next candidate's generation", x->eval.ahead_seen);
	if (x->max_unevaluated > 3)
		fail_msg("%d versions waited for evaluation at once (--parallel 3)", x->max_unevaluated);
	assert_int_equal(x->over_width, 0);
	assert_true(fabs(kp_store_counter(x->s, "gpu_busy_s") - 11 * 0.25) < 1e-9); /* the reference too */
	assert_int_equal(x->evaluated_seen, 10 + 1);
	fx_free(x);
}

static void test_unusable_replies_stop_the_run(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	x->prog.no_code = 1;
	x->run.budget.evals = 10;
	assert_int_equal(run_loop(x, &out, &err), KP_ELLM);
	assert_non_null(strstr(kp_error_msg(&err), "no code block"));
	assert_int_equal(out.end, KP_END_ERROR);
	/* The replies are kept for a person to read. */
	assert_int_equal(kp_store_exchange_count(x->s, 0), x->run.params.max_gen_failures);
	assert_true(kp_store_counter(x->s, "generation_failures") == x->run.params.max_gen_failures);
	fx_free(x);
}

static void test_programmer_failure_is_resumable(void **state)
{
	struct fx *x = fx_new(story, KP_ARRAY_SIZE(story));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf b = KP_BUF_INIT;
	x->prog.hard_error_at = 3;
	x->run.budget.evals = 5;
	assert_int_equal(run_loop(x, &out, &err), KP_EAUTH);
	assert_non_null(strstr(kp_error_msg(&err), "key rejected"));
	assert_int_equal(out.evals, 2);
	KP_ASSERT_OK(kp_store_meta_get(x->s, "status", &b, &err), &err);
	assert_string_equal(b.buf, "failed");
	x->prog.hard_error_at = 0;
	kp_error_clear(&err);
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_true(kp_store_counter(x->s, "evaluations") == 5);
	kp_buf_release(&b);
	fx_free(x);
}

static void test_token_budget(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	x->run.budget.tokens = 350;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_TOKENS);
	assert_int_equal(x->prog.calls, 4); /* 300 < 350 allows a fourth; 400 stops */
	assert_int_equal(out.evals, 4);    /* what was paid for is evaluated */
	fx_free(x);
}


/* Issue 21: each session stored the run's total as its own time, so the budget doubled per resume. */
static void test_wall_budget_over_sessions(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	static const long evals[] = {2, 4, 5}; /* the run's budget in each session */

	/* Every evaluation (the reference's too) takes 10 s of the test's clock; nothing else takes any. */
	x->run.clock = fx_clock;
	x->eval.clock = &x->clock_s;
	x->eval.tick_s = 10;
	x->run.budget.wall_s = 1000;
	for (size_t i = 0; i < KP_ARRAY_SIZE(evals); i++) {
		x->run.budget.evals = evals[i];
		x->clock_s += 500; /* time between sessions is no session's */
		KP_ASSERT_OK(run_loop(x, &out, &err), &err);
		assert_int_equal(out.end, KP_END_EVALS);
	}
	/* 30 s (the reference and 2 evaluations), 20 s, 10 s. */
	assert_int_equal(kp_store_session_count(x->s), 3);
	assert_true(fabs(kp_store_elapsed_total(x->s) - 60) < 1e-9);
	/* A fourth session has 5 s left of 65: one more evaluation, then the wall budget ends it. */
	x->run.budget.evals = 100;
	x->run.budget.wall_s = 65;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_WALL);
	assert_int_equal(out.evals, 1);
	assert_true(fabs(kp_store_elapsed_total(x->s) - 70) < 1e-9);
	fx_free(x);
}

static void test_kill_and_resume(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	pid_t pid;
	long before = 0, ids_before;
	int status;

	x->run.budget.evals = 12;
	x->eval.sleep_ms = 30;
	x->prog.sleep_ms = 5;
	kp_store_close(x->s);
	x->s = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fx_open(x);
		run_loop(x, &out, &err);
		_exit(0);
	}
	/* Watch the database from outside until some evaluations are committed, then kill -9. */
	for (int i = 0; i < 500 && before < 4; i++) {
		struct kp_store *ro;
		usleep(10000);
		if (kp_store_open(&ro, x->db, KP_STORE_READONLY, &err)) {
			kp_error_clear(&err);
			continue;
		}
		before = (long)kp_store_counter(ro, "evaluations");
		kp_store_close(ro);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status));
	assert_true(before >= 4);

	fx_open(x);
	KP_ASSERT_OK(kp_store_check(x->s, &err), &err);
	before = (long)kp_store_counter(x->s, "evaluations");
	ids_before = eval_stats(x->s).id_sum;
	assert_true(before >= 4 && before < 12);
	assert_int_equal(eval_stats(x->s).n, before);
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_true(kp_store_counter(x->s, "evaluations") == 12);
	assert_int_equal(eval_stats(x->s).n, 12);
	/* Nothing committed before the kill was lost or redone. */
	assert_true(eval_stats(x->s).id_sum > ids_before);
	assert_int_equal(eval_stats(x->s).twice, 0);
	assert_int_equal(x->eval.reference_calls, 0); /* the child process did Stage 1 */
	assert_int_equal(kp_store_session_count(x->s), 2);
	fx_free(x);
}

static int bad_reference(struct kp_search_evaluator *ev, struct kp_search_eval *r, struct kp_error *er)
{
	r->outcome = KP_OUTCOME_RUNTIME_ERROR;
	r->log = kp_xstrdup("illegal memory access");
	return 0;
}

static void test_reference_failure_refused(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	/* A reference that is wrong against itself is a broken task: refused before any LLM call. */
	x->eval.base.reference = bad_reference;
	x->run.budget.evals = 3;
	assert_int_equal(run_loop(x, &out, &err), KP_EINVAL);
	assert_non_null(strstr(kp_error_msg(&err), "reference"));
	assert_int_equal(x->prog.calls, 0);
	fx_free(x);
}

static void test_memory_learns_and_renders(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_error err = KP_ERROR_INIT;
	struct kp_memory m = {x->s, NULL, "vec_add", "test-run"};
	struct kp_tree t;
	struct kp_node_row r;
	struct kp_buf out = KP_BUF_INIT;
	const char *parent = "__global__ void k(float *y) {\n  vec4 v = load(y);\n}\n";
	const char *child = "__global__ void k(float *y) {\n  float4 v = *(float4 *)y;\n}\n";
	int bad, fixed;

	kp_tree_init(&t);
	for (long id = 1; id <= 3; id++) {
		kp_node_row_init(&r);
		r.id = id;
		r.parent = id - 1;
		r.kind = id == 1 ? KP_NODE_ROOT : id == 2 ? KP_NODE_INITIAL : KP_NODE_REPAIR;
		KP_ASSERT_OK(kp_store_node_insert(x->s, &r, "cuda", "x", &err), &err);
		kp_tree_add(&t, &r);
	}
	kp_tree_record(&t, &x->run.params, 0, KP_OUTCOME_CORRECT, 1, NAN);
	bad = 1;
	kp_tree_record(&t, &x->run.params, bad, KP_OUTCOME_COMPILE_ERROR, NAN, NAN);
	fixed = 2;
	kp_tree_record(&t, &x->run.params, fixed, KP_OUTCOME_CORRECT, 1.5, NAN);
	KP_ASSERT_OK(kp_memory_learn(&m, &t, &x->run.params, fixed, child, parent,
				     "cand.cu(12): error: identifier \"vec4\" is undefined", NULL, "fix", &err), &err);
	/* A debug prompt for a similar error (other line number) gets the fix, with the line that fixed it. */
	KP_ASSERT_OK(kp_memory_render(&m, &t, bad, KP_PROG_DEBUG, "other.cu(99): error: identifier \"vec4\" is undefined",
				      1000, &out, &err), &err);
	assert_non_null(strstr(out.buf, "compile error \"error: identifier \"vec4\" is undefined\" fixed by: float4 v = *(float4 *)y;"));
	assert_non_null(strstr(out.buf, "float4 worked"));
	/* Bounded: a tiny budget keeps whole lines only. */
	kp_buf_reset(&out);
	KP_ASSERT_OK(kp_memory_render(&m, &t, fixed, KP_PROG_OPTIMIZE, NULL, 60, &out, &err), &err);
	assert_true(out.len <= 60);
	assert_true(out.len == 0 || out.buf[out.len - 1] == '\n');
	/* Deterministic. */
	{
		struct kp_buf again = KP_BUF_INIT;
		kp_buf_reset(&out);
		KP_ASSERT_OK(kp_memory_render(&m, &t, fixed, KP_PROG_OPTIMIZE, NULL, 1000, &out, &err), &err);
		KP_ASSERT_OK(kp_memory_render(&m, &t, fixed, KP_PROG_OPTIMIZE, NULL, 1000, &again, &err), &err);
		assert_string_equal(out.buf, again.buf);
		kp_buf_release(&again);
	}
	kp_buf_release(&out);
	kp_tree_release(&t);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_end_to_end),
	    cmocka_unit_test(test_memory_reaches_prompts),
	    cmocka_unit_test(test_resume_after_stop),
	    cmocka_unit_test(test_resume_evaluates_saved_candidate_first),
	    cmocka_unit_test(test_parallel_requests_single_gpu),
	    cmocka_unit_test(test_parallel_lookahead_bounded),
	    cmocka_unit_test(test_pipelined_evaluation),
	    cmocka_unit_test(test_unusable_replies_stop_the_run),
	    cmocka_unit_test(test_programmer_failure_is_resumable),
	    cmocka_unit_test(test_token_budget),
	    cmocka_unit_test(test_wall_budget_over_sessions),
	    cmocka_unit_test(test_kill_and_resume),
	    cmocka_unit_test(test_reference_failure_refused),
	    cmocka_unit_test(test_memory_learns_and_renders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
