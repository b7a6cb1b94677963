/*
 * Unit tests: profiling on demand in the optimize loop, on the CPU with a scripted programmer and a
 * fake harness (search_loop_fixture.h): a version profiled before its expansion, speculatively while
 * the GPU waits on the model, the best before the end (and not without the time for it); never one that
 * is not expanded, never twice; a failing profile stops the run; a kill in the middle of a profile,
 * then resume. The rest of the loop: t_search_loop.c.
 */
#include "base/setup.h"

#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kp_search_fakes.h"
#include "kp_test.h"
#include "kernelpro/json.h"
#include "kernelpro/log.h"
#include "kernelpro/search.h"
#include "search_loop_fixture.h"

/* Correct versions (the reference aside) by whether they were expanded and whether they are profiled. */
struct census {
	int expanded_profiled, expanded_unprofiled, unexpanded_profiled, unexpanded_unprofiled;
	long unexpanded_profiled_id; /* the last one */
};

static struct census profile_census(struct kp_store *s)
{
	struct kp_node_row *rows = NULL;
	struct kp_error err = KP_ERROR_INIT;
	struct census c;
	size_t n = 0;

	memset(&c, 0, sizeof(c));
	KP_ASSERT_OK(kp_store_nodes_load(s, &rows, &n, &err), &err);
	for (size_t i = 0; i < n; i++) {
		int yes = 0;
		if (!rows[i].parent || !rows[i].evaluated || rows[i].outcome != KP_OUTCOME_CORRECT)
			continue;
		KP_ASSERT_OK(kp_store_profile_exists(s, rows[i].id, &yes, &err), &err);
		if (rows[i].expansions)
			yes ? c.expanded_profiled++ : c.expanded_unprofiled++;
		else if (yes)
			c.unexpanded_profiled++, c.unexpanded_profiled_id = rows[i].id;
		else
			c.unexpanded_unprofiled++;
	}
	free(rows);
	return c;
}

static long profiles_counted(struct kp_store *s)
{
	return (long)(kp_store_counter(s, "profiles_on_demand") +
	              kp_store_counter(s, "profiles_speculative") + kp_store_counter(s, "profiles_final"));
}

/* No version was profiled twice (the fake counts per node). */
static void assert_profiled_once(const struct fake_eval *f)
{
	for (size_t i = 0; i < KP_ARRAY_SIZE(f->profiled); i++)
		if (f->profiled[i] > 1)
			fail_msg("#%zu was profiled %d times", i, f->profiled[i]);
}

/* ---- tests ----------------------------------------------------------------------------------------- */

/*
 * Profiling on demand, one request at a time: a version is profiled before a request for its child is
 * built (and the request carries its profile), a version never expanded is never profiled, and the best
 * one is profiled before the run ends.
 */

static const struct step ranked[] = {
    {"correct", 2.0}, {"correct", 1.5}, {"correct", 1.2}, {"correct", 3.0}, {"wrong_output", 9},
    {"correct", 1.1}, {"correct", 2.5}, {"correct", 3.5}, {"correct", 1.3}, {"correct", 1.4},
};

static void test_profile_on_demand(void **state)
{
	struct fx *x = fx_new(ranked, KP_ARRAY_SIZE(ranked));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_search_params *p = &x->run.params;
	struct census c;
	struct kp_buf fb = KP_BUF_INIT;

	fake_eval_lazy(&x->eval);
	x->eval.gpu_s = 0.5;
	p->algo = KP_SEARCH_GREEDY; /* the best version is expanded: the slower ones never are */
	x->run.budget.evals = 10;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	c = profile_census(x->s);
	/* Every expanded correct version was profiled, before its child's request: that request had its
	 * profile. */
	assert_int_equal(c.expanded_unprofiled, 0);
	assert_true(c.expanded_profiled > 0);
	assert_true(x->prog.optimize_calls > 0);
	assert_int_equal(x->prog.optimize_without_profile, 0);
	assert_int_equal(x->prog.optimize_with_profile, x->prog.optimize_calls);
	/* Versions never expanded were not profiled, except the best, profiled before the run ended. */
	assert_true(c.unexpanded_unprofiled > 0);
	assert_true(c.unexpanded_profiled <= 1);
	assert_int_equal(kp_store_counter(x->s, "profiles_final"), c.unexpanded_profiled);
	if (c.unexpanded_profiled)
		assert_int_equal(c.unexpanded_profiled_id, out.best_node);
	assert_int_equal(kp_store_counter(x->s, "profiles_on_demand"), c.expanded_profiled);
	assert_int_equal(kp_store_counter(x->s, "profiles_speculative"),
	                 0); /* no request ever ran beside the GPU */
	assert_int_equal(x->eval.profiles, profiles_counted(x->s));
	assert_profiled_once(&x->eval);
	/* The best version's diagnosis is there for the user. */
	KP_ASSERT_OK(kp_store_eval_text(x->s, out.best_node, NULL, &fb, NULL, &err), &err);
	assert_non_null(strstr(fb.buf, "occupancy"));
	/* The GPU's busy time counts the profiles: the reference, 10 evaluations and each profile at 0.5 s.
	 */
	assert_true(fabs(kp_store_counter(x->s, "gpu_busy_s") - (11 + x->eval.profiles) * 0.5) < 1e-9);
	kp_buf_release(&fb);
	fx_free(x);
}

/* The best version, never expanded, is profiled before the run ends: users read its diagnosis. */
static const struct step rising[] = {{"correct", 2.0}, {"correct", 3.0}};

static void test_profile_best_before_the_end(void **state)
{
	struct fx *x = fx_new(rising, KP_ARRAY_SIZE(rising));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf fb = KP_BUF_INIT;
	struct census c;

	fake_eval_lazy(&x->eval);
	x->run.params.algo = KP_SEARCH_GREEDY;
	x->run.budget.evals = 2;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.best_node, 3); /* #2 at 2.0x, expanded: #3 at 3.0x, the last */
	c = profile_census(x->s);
	assert_int_equal(c.expanded_profiled, 1);
	assert_int_equal(c.unexpanded_profiled, 1);
	assert_int_equal(c.unexpanded_profiled_id, 3);
	assert_int_equal(kp_store_counter(x->s, "profiles_final"), 1);
	KP_ASSERT_OK(kp_store_eval_text(x->s, 3, NULL, &fb, NULL, &err), &err);
	assert_string_equal(fb.buf, "occupancy: 50% achieved (#3)");
	/* A resumed run whose best is profiled does not profile it again. */
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(x->eval.profiles, 2);
	kp_buf_release(&fb);
	fx_free(x);
}

/* With the wall-time budget spent, the run ends without the final profile, and says so. */
static void test_profile_best_skipped_without_time(void **state)
{
	struct fx *x = fx_new(rising, KP_ARRAY_SIZE(rising));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;

	fake_eval_lazy(&x->eval);
	x->run.params.algo = KP_SEARCH_GREEDY;
	x->run.clock = fx_clock;
	x->eval.clock = &x->clock_s;
	x->eval.tick_s = 10;
	x->run.budget.wall_s = 20; /* the reference and #2: 20 s */
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_WALL);
	assert_int_equal(out.best_node, 2);
	assert_int_equal(x->eval.profiles, 0);
	assert_int_equal(profile_census(x->s).unexpanded_unprofiled, 1);
	fx_free(x);
}

/* A profile that fails hard stops the run as a failed evaluation would, and the run resumes. */
static int failing_profile(struct kp_search_evaluator *e, long node_id, const char *source, const char *lang,
                           struct kp_search_eval *out, struct kp_error *err)
{
	return kp_error_set(err, KP_ENODEV, "fake: the GPU fell off the bus");
}

static void test_profile_failure_stops_the_run(void **state)
{
	struct fx *x = fx_new(ranked, KP_ARRAY_SIZE(ranked));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;

	x->eval.base.profile = failing_profile;
	x->run.params.algo = KP_SEARCH_GREEDY;
	x->run.budget.evals = 4;
	assert_int_equal(run_loop(x, &out, &err), KP_ENODEV);
	assert_non_null(strstr(kp_error_msg(&err), "profiling #"));
	assert_int_equal(out.end, KP_END_ERROR);
	assert_int_equal(profiles_counted(x->s), 0);
	fx_free(x);
}

/* With requests in flight and nothing to evaluate, the GPU profiles the best unprofiled version. */
static void test_profile_speculative_while_generating(void **state)
{
	struct fx *x = fx_new(NULL, 0);
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;

	fake_eval_pipelined(&x->eval, 0);
	fake_eval_lazy(&x->eval);
	x->eval.prog = &x->prog;
	x->eval.gpu_s = 0.25;
	x->run.params.parallel = 2;
	x->prog.sleep_ms = 40; /* a slow model: the GPU waits on it */
	x->run.budget.evals = 8;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_true(kp_store_counter(x->s, "profiles_speculative") > 0);
	assert_int_equal(x->eval.overlap_seen, 1); /* GPU jobs ran while the programmer worked */
	assert_profiled_once(&x->eval);
	assert_int_equal(x->eval.profiles, profiles_counted(x->s));
	assert_int_equal(profile_census(x->s).expanded_unprofiled, 0);
	assert_int_equal(x->prog.optimize_without_profile, 0);
	assert_true(fabs(kp_store_counter(x->s, "gpu_busy_s") - (9 + x->eval.profiles) * 0.25) < 1e-9);
	fx_free(x);
}

/* kill -9 in the middle of a profile: nothing committed is lost, and the version is profiled on resume. */
static int dying_profile(struct kp_search_evaluator *e, long node_id, const char *source, const char *lang,
                         struct kp_search_eval *out, struct kp_error *err)
{
	raise(SIGKILL);
	return 0;
}

static void test_profile_killed_and_resumed(void **state)
{
	struct fx *x = fx_new(ranked, KP_ARRAY_SIZE(ranked));
	struct kp_search_outcome out;
	struct kp_error err = KP_ERROR_INIT;
	struct census c;
	long before;
	pid_t pid;
	int status;

	x->run.params.algo = KP_SEARCH_GREEDY;
	x->run.budget.evals = 8;
	kp_store_close(x->s);
	x->s = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fx_open(x);
		x->eval.base.profile = dying_profile;
		run_loop(x, &out, &err);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	fx_open(x);
	KP_ASSERT_OK(kp_store_check(x->s, &err), &err);
	before = (long)kp_store_counter(x->s, "evaluations");
	c = profile_census(x->s);
	assert_true(before >= 1);
	assert_int_equal(profiles_counted(x->s), 0);
	assert_int_equal(c.expanded_profiled + c.unexpanded_profiled, 0); /* committed unprofiled */
	fake_eval_lazy(&x->eval);
	x->prog.next = x->prog.calls = 0;
	KP_ASSERT_OK(run_loop(x, &out, &err), &err);
	assert_int_equal(out.end, KP_END_EVALS);
	assert_int_equal(kp_store_counter(x->s, "evaluations"), 8);
	assert_int_equal(eval_stats(x->s).twice, 0);
	c = profile_census(x->s);
	assert_int_equal(c.expanded_unprofiled, 0);
	assert_true(c.expanded_profiled > 0);
	assert_int_equal(x->prog.optimize_without_profile, 0);
	assert_profiled_once(&x->eval);
	assert_int_equal(kp_store_session_count(x->s), 2);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_profile_on_demand),
	    cmocka_unit_test(test_profile_best_before_the_end),
	    cmocka_unit_test(test_profile_best_skipped_without_time),
	    cmocka_unit_test(test_profile_failure_stops_the_run),
	    cmocka_unit_test(test_profile_speculative_while_generating),
	    cmocka_unit_test(test_profile_killed_and_resumed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
