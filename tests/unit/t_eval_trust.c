/* Unit tests: what kernelpro checks itself before trusting an evaluation (issue 21): numbers no
 * measurement gives (a negative runtime, a 1e308 speedup) never make a correct verdict, from the
 * harness or from a search evaluator; a child ended by the sandbox's SIGSYS is process_spawn, by its
 * CPU-time limit a timeout; the sandbox's report reaches the verdict and its JSON. */
#include "base/setup.h"

#include <math.h>
#include <signal.h>

#include "eval/harness.h"
#include "kp_test.h"
#include "kernelpro/eval.h"
#include "kernelpro/json.h"
#include "kernelpro/search_backends.h"
#include "kernelpro/task.h"

static void numbers_refused(double t, double sd, double ref, double sp, double e, const char *want)
{
	struct kp_error err = KP_ERROR_INIT;
	if (kp_eval_numbers_check("evaluator", t, sd, ref, sp, e, &err) != KP_EPARSE)
		fail_msg("accepted time %g std %g ref %g speedup %g energy %g", t, sd, ref, sp, e);
	if (!strstr(kp_error_msg(&err), want))
		fail_msg("message '%s' lacks '%s'", kp_error_msg(&err), want);
}

static void test_numbers(void **state)
{
	struct kp_error err = KP_ERROR_INIT;
	(void)state;
	KP_ASSERT_OK(kp_eval_numbers_check("e", 0.412, 0.006, 1.236, 3.0, 0.125, &err), &err);
	KP_ASSERT_OK(kp_eval_numbers_check("e", NAN, NAN, NAN, NAN, NAN, &err), &err);
	KP_ASSERT_OK(kp_eval_numbers_check("e", 0.5, NAN, NAN, 2.2, NAN, &err), &err);
	KP_ASSERT_OK(kp_eval_numbers_check("e", 1.0, 0, 1.2, 1.0, 0, &err), &err); /* within 25% */
	numbers_refused(-1, NAN, 2, NAN, NAN, "runtime -1 ms is not a measurement");
	numbers_refused(0, NAN, 2, NAN, NAN, "runtime 0 ms");
	numbers_refused(INFINITY, NAN, 2, NAN, NAN, "runtime inf ms");
	numbers_refused(1, NAN, -3, NAN, NAN, "reference runtime -3 ms");
	numbers_refused(1, -0.1, 2, NAN, NAN, "standard deviation -0.1");
	numbers_refused(NAN, NAN, NAN, 1e308, NAN, "speedup 1e+308 is not a measurement");
	numbers_refused(NAN, NAN, NAN, -2, NAN, "speedup -2");
	numbers_refused(NAN, NAN, NAN, INFINITY, NAN, "speedup inf");
	numbers_refused(1, NAN, 2, 1000, NAN, "speedup 1000 does not follow from the times");
	numbers_refused(1, NAN, 2, 2, -5, "energy -5 J");
}

/*
 * The search's exec evaluator takes the same bounds (lib/adapters/exec_eval.c); a verdict outside them
 * fails its candidate as implausible_result, not the run (issue 30, N12).
 */
static void test_exec_evaluator_refuses_absurd_numbers(void **state)
{
	static const char *const bad[] = {
		"{\"status\":\"correct\",\"speedup\":1e308}",
		"{\"status\":\"correct\",\"speedup\":2,\"runtime\":{\"median_ms\":-0.5}}",
		"{\"status\":\"correct\",\"runtime\":{\"median_ms\":-1},\"ref_runtime\":{\"median_ms\":-2}}",
		"{\"status\":\"correct\",\"speedup\":3,\"energy_j\":-1}",
	};
	(void)state;
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		struct kp_search_eval e;
		struct kp_error err = KP_ERROR_INIT;
		kp_search_eval_init(&e);
		KP_ASSERT_OK(kp_exec_verdict_parse("exec evaluator", bad[i], strlen(bad[i]), &e, &err), &err);
		if (e.outcome != KP_OUTCOME_CHEAT_SUSPECTED)
			fail_msg("accepted %s", bad[i]);
		assert_non_null(strstr(e.log, "refused by check 'implausible_result'"));
		assert_non_null(strstr(e.log, "is not a measurement"));
		assert_true(isnan(e.speedup) && isnan(e.time_ms));
		kp_search_eval_release(&e);
	}
}

static void child_init(struct kp_child *c, int sig, const char *err)
{
	kp_child_init(c);
	c->term_signal = sig;
	c->exit_code = sig ? -1 : 0;
	kp_buf_adds(&c->err, err);
}

/* A harness result run through kp_harness_apply and the trust checks, as kp_eval_cmd_parse does. */
static void judge(const char *out, int sig, struct kp_verdict *v)
{
	struct kp_eval_cmd cmd;
	struct kp_child c;
	struct kp_error err = KP_ERROR_INIT;
	memset(&cmd, 0, sizeof(cmd));
	child_init(&c, sig, sig ? "kernelpro sandbox: refused clone\n" : "");
	kp_buf_adds(&c.out, out);
	kp_verdict_init(v);
	KP_ASSERT_OK(kp_eval_cmd_parse(&cmd, &c, v, &err), &err);
	kp_child_release(&c);
}

#define RESULT(runtime, extra)                                                                                 \
	"{\"phase\":\"timing\",\"limit_s\":300}\n{\"result\":{\"status\":\"correct\",\"message\":\"ok\",\"compiled\":" \
	"true,\"trials_run\":5,\"trials_passed\":5,\"runtime\":" runtime ",\"ref_runtime\":{\"median_ms\":1.0,"      \
	"\"mean_ms\":1.0,\"std_ms\":0,\"min_ms\":1.0,\"max_ms\":1.0,\"trials\":100}" extra ",\"flags\":[]}}\n"

static void test_negative_runtime_is_refused(void **state)
{
	struct kp_verdict v;
	(void)state;
	judge(RESULT("{\"median_ms\":-0.5,\"mean_ms\":-0.5,\"std_ms\":0,\"min_ms\":-0.5,\"max_ms\":-0.5,\"trials\":100}",
		     ""),
	      0, &v);
	assert_int_equal(v.status, KP_STATUS_CHEAT_SUSPECTED);
	assert_non_null(kp_verdict_find_flag(&v, "implausible_result"));
	assert_non_null(strstr(v.message, "refused by check 'implausible_result'"));
	kp_verdict_release(&v);

	judge(RESULT("{\"median_ms\":0.5,\"mean_ms\":0.5,\"std_ms\":0,\"min_ms\":0.6,\"max_ms\":0.9,\"trials\":100}", ""),
	      0, &v);
	assert_int_equal(v.status, KP_STATUS_CHEAT_SUSPECTED); /* a median below the minimum */
	kp_verdict_release(&v);

	judge(RESULT("{\"median_ms\":0.5,\"mean_ms\":0.5,\"std_ms\":0,\"min_ms\":0.5,\"max_ms\":0.5,\"trials\":100}", ""),
	      0, &v);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	kp_verdict_release(&v);
}

/* Valid-looking times whose ratio no kernel reaches: the speedup check refuses it. */
static void test_absurd_speedup_is_refused(void **state)
{
	struct kp_verdict v;
	struct kp_task t;
	struct kp_eval_opts o;
	(void)state;
	kp_task_init(&t);
	t.kind = KP_TASK_KERNELBENCH;
	kp_eval_opts_init(&o);
	kp_verdict_init(&v);
	v.status = KP_STATUS_CORRECT;
	v.runtime = (struct kp_timing){1e-5, 1e-5, 0, 1e-5, 1e-5, 100, 1e-5};
	v.ref_runtime = (struct kp_timing){1e6, 1e6, 0, 1e6, 1e6, 100, 1e6};
	kp_eval_speed_checks(&t, &o, &v);
	assert_int_equal(v.status, KP_STATUS_CHEAT_SUSPECTED);
	assert_non_null(kp_verdict_find_flag(&v, "implausible_result"));
	kp_verdict_release(&v);
	kp_task_release(&t);
}

static void test_sigsys_death_is_process_spawn(void **state)
{
	struct kp_verdict v;
	(void)state;
	judge("{\"phase\":\"build\",\"limit_s\":300}\n", SIGSYS, &v);
	assert_int_equal(v.status, KP_STATUS_CHEAT_SUSPECTED);
	assert_non_null(kp_verdict_find_flag(&v, "process_spawn"));
	assert_non_null(strstr(v.message, "refused by check 'process_spawn'"));
	assert_non_null(strstr(v.log, "ended by SIGSYS in phase 'build'"));
	kp_verdict_release(&v);

	judge("{\"phase\":\"timing\",\"limit_s\":300}\n", SIGXCPU, &v);
	assert_int_equal(v.status, KP_STATUS_TIMEOUT);
	assert_non_null(strstr(v.message, "CPU-time limit"));
	kp_verdict_release(&v);
}

static void test_sandbox_report_reaches_the_verdict(void **state)
{
	struct kp_verdict v, back;
	struct kp_error err = KP_ERROR_INIT;
	json_t *j;
	(void)state;
	judge(RESULT("{\"median_ms\":0.5,\"mean_ms\":0.5,\"std_ms\":0,\"min_ms\":0.5,\"max_ms\":0.5,\"trials\":100}",
		     ",\"sandbox\":{\"applied\":true,\"network\":{\"isolated\":false,\"why\":\"no namespace\"},"
		     "\"refused\":{}}"),
	      0, &v);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	assert_non_null(v.sandbox);
	j = kp_verdict_to_json(&v);
	assert_false(json_is_true(json_object_get(json_object_get(json_object_get(j, "sandbox"), "network"), "isolated")));
	assert_string_equal(kp_json_str(json_object_get(json_object_get(j, "sandbox"), "network"), "why", ""),
			    "no namespace");
	kp_verdict_init(&back);
	KP_ASSERT_OK(kp_verdict_from_json(&back, j, &err), &err);
	assert_true(json_equal(back.sandbox, v.sandbox));
	json_decref(j);
	kp_verdict_release(&back);
	kp_verdict_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_exec_evaluator_refuses_absurd_numbers),
		cmocka_unit_test(test_negative_runtime_is_refused),
		cmocka_unit_test(test_absurd_speedup_is_refused),
		cmocka_unit_test(test_sigsys_death_is_process_spawn),
		cmocka_unit_test(test_sandbox_report_reaches_the_verdict),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
