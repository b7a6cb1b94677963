/* Unit tests: verdict documents read by the search (golden files), and the exec evaluator running a real program. */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/fs.h"
#include "kernelpro/search_backends.h"

static int parse_golden(const char *name, struct kp_search_eval *out, struct kp_error *err)
{
	struct kp_buf b = KP_BUF_INIT;
	char rel[128];
	int rc;
	snprintf(rel, sizeof(rel), "tests/golden/search/%s", name);
	kp_test_read(rel, &b);
	kp_search_eval_init(out);
	rc = kp_exec_verdict_parse(name, b.buf, b.len, out, err);
	kp_buf_release(&b);
	return rc;
}

static void test_parse_correct(void **state)
{
	struct kp_search_eval e;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(parse_golden("verdict-correct.json", &e, &err), &err);
	assert_int_equal(e.outcome, KP_OUTCOME_CORRECT);
	assert_true(e.speedup == 3.0);
	assert_true(e.time_ms == 0.412);
	assert_true(e.time_std_ms == 0.006);
	assert_true(e.ref_time_ms == 1.236);
	assert_true(e.energy_j == 0.125);
	assert_string_equal(e.log, "5 of 5 trials match (max |diff| 2.4e-07)"); /* no log: the message */
	assert_non_null(strstr(e.feedback, "2.61 TB/s"));
	assert_non_null(strstr(e.findings_json, "\"vector_width\""));
	assert_non_null(strstr(e.verdict_json, "kernelpro.verdict/1"));
	kp_search_eval_release(&e);
}

static void test_parse_failures(void **state)
{
	struct kp_search_eval e;
	struct kp_error err = KP_ERROR_INIT;
	KP_ASSERT_OK(parse_golden("verdict-compile-error.json", &e, &err), &err);
	assert_int_equal(e.outcome, KP_OUTCOME_COMPILE_ERROR);
	assert_non_null(strstr(e.log, "float4x"));
	assert_true(isnan(e.time_ms));
	assert_true(isnan(e.speedup));
	kp_search_eval_release(&e);
	KP_ASSERT_OK(parse_golden("verdict-wrong.json", &e, &err), &err);
	assert_int_equal(e.outcome, KP_OUTCOME_WRONG_OUTPUT);
	assert_true(e.speedup == 6.0); /* read, but a wrong candidate's speed never counts (t_search) */
	assert_non_null(strstr(e.log, "max |diff| 0.51"));
	kp_search_eval_release(&e);
	/* Without a speedup it comes from the two runtimes. */
	KP_ASSERT_OK(parse_golden("verdict-runtimes-only.json", &e, &err), &err);
	assert_true(e.speedup == 4.0);
	kp_search_eval_release(&e);
}

static void test_parse_refusals(void **state)
{
	static const char *const bad[] = {
		"", "[]", "{}", "{\"status\": \"compiled\"}", "{\"status\": 7}", "{\"status\": \"correct\"}",
		"{\"status\": \"correct\", \"speedup\": 2", "not json",
	};
	for (size_t i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		struct kp_search_eval e;
		struct kp_error err = KP_ERROR_INIT;
		kp_search_eval_init(&e);
		assert_true(kp_exec_verdict_parse("fake harness", bad[i], strlen(bad[i]), &e, &err) < 0);
		assert_non_null(strstr(kp_error_msg(&err), "fake harness"));
		kp_search_eval_release(&e);
	}
}

/* A harness script: the reference is 2 ms; a candidate's speed is the number after "speed=" in it. */
static const char script[] =
	"#!/bin/sh\n"
	"f=$1\n"
	"if [ \"$KP_EVAL_ROLE\" = reference ]; then\n"
	"  echo '{\"status\":\"correct\",\"runtime\":{\"median_ms\":2.0},\"ref_runtime\":{\"median_ms\":2.0},"
	"\"stage1\":\"memory-bound\",\"hardware\":\"H200\"}'\n"
	"  exit 0\nfi\n"
	"grep -q crash \"$f\" && { echo 'harness died' >&2; exit 3; }\n"
	"grep -q hang \"$f\" && sleep 5\n"
	"grep -q broken \"$f\" && { echo '{\"status\":\"compile_error\",\"log\":\"node '$KP_NODE_ID': error\"}'; exit 1; }\n"
	"grep -q gpu \"$f\" && { echo '{\"status\":\"wrong_output\",\"log\":\"gpu '${KP_GPU:-none}'\"}'; exit 1; }\n"
	"s=$(sed -n 's/.*speed=\\([0-9.]*\\).*/\\1/p' \"$f\")\n"
	"echo \"{\\\"status\\\":\\\"correct\\\",\\\"speedup\\\":$s,\\\"runtime\\\":{\\\"median_ms\\\":1.0}}\"\n";

static void test_exec_evaluator(void **state)
{
	char *dir = kp_test_tmpdir();
	struct kp_buf sh = KP_BUF_INIT, ref = KP_BUF_INIT, work = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_search_evaluator *ev;
	struct kp_search_eval e;
	const char *argv[3] = {"sh", NULL, NULL};

	kp_buf_addf(&sh, "%s/harness.sh", dir);
	kp_buf_addf(&ref, "%s/reference.cu", dir);
	kp_buf_addf(&work, "%s/work", dir);
	KP_ASSERT_OK(kp_write_file_atomic(sh.buf, script, strlen(script), &err), &err);
	KP_ASSERT_OK(kp_write_file_atomic(ref.buf, "// ref", 6, &err), &err);
	argv[1] = sh.buf;
	KP_ASSERT_OK(kp_exec_evaluator_new(&ev, argv, ref.buf, work.buf, "cu", 2.0, &err), &err);

	kp_search_eval_init(&e);
	KP_ASSERT_OK(ev->reference(ev, &e, &err), &err);
	assert_int_equal(e.outcome, KP_OUTCOME_CORRECT);
	assert_true(e.speedup == 1.0);
	assert_string_equal(e.stage1, "memory-bound");
	kp_search_eval_release(&e);

	KP_ASSERT_OK(ev->evaluate(ev, 7, "// speed=2.5\n", "cuda", &e, &err), &err);
	assert_int_equal(e.outcome, KP_OUTCOME_CORRECT);
	assert_true(e.speedup == 2.5);
	assert_true(e.wall_s > 0);
	kp_search_eval_release(&e);

	/* A failing candidate's verdict counts even though the program exited 1. */
	KP_ASSERT_OK(ev->evaluate(ev, 8, "// broken\n", "cuda", &e, &err), &err);
	assert_int_equal(e.outcome, KP_OUTCOME_COMPILE_ERROR);
	assert_string_equal(e.log, "node 8: error");
	kp_search_eval_release(&e);

	/* The GPU the session pins its evaluations to reaches the program as KP_GPU (none: not set). */
	KP_ASSERT_OK(ev->evaluate(ev, 11, "// gpu\n", "cuda", &e, &err), &err);
	assert_string_equal(e.log, "gpu none");
	kp_search_eval_release(&e);
	kp_exec_evaluator_set_gpu(ev, 3);
	KP_ASSERT_OK(ev->evaluate(ev, 12, "// gpu\n", "cuda", &e, &err), &err);
	assert_string_equal(e.log, "gpu 3");
	kp_search_eval_release(&e);

	/* A harness that dies without a verdict is an evaluation failure, with its stderr quoted. */
	assert_int_equal(ev->evaluate(ev, 9, "// crash\n", "cuda", &e, &err), KP_ECHILD);
	assert_non_null(strstr(kp_error_msg(&err), "harness died"));
	assert_non_null(strstr(kp_error_msg(&err), "status 3"));
	kp_search_eval_release(&e);
	kp_error_clear(&err);
	assert_int_equal(ev->evaluate(ev, 10, "// hang\n", "cuda", &e, &err), KP_ECHILD);
	assert_non_null(strstr(kp_error_msg(&err), "timed out"));
	kp_search_eval_release(&e);
	ev->free(ev);

	kp_error_clear(&err);
	argv[0] = "no-such-harness-program";
	assert_int_equal(kp_exec_evaluator_new(&ev, argv, ref.buf, work.buf, "cu", 0, &err), KP_ENOTOOL);
	assert_non_null(strstr(kp_error_msg(&err), "no-such-harness-program"));

	kp_buf_release(&sh);
	kp_buf_release(&ref);
	kp_buf_release(&work);
	kp_test_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_correct),
		cmocka_unit_test(test_parse_failures),
		cmocka_unit_test(test_parse_refusals),
		cmocka_unit_test(test_exec_evaluator),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
