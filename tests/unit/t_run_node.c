/* Why a version was refused or failed, from its stored verdict (kp_run_verdict_reason, lib/run/node.c). */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/json.h"
#include "kernelpro/run.h"

static json_t *reason(const char *verdict, const char *outcome, const char *log)
{
	json_t *v = verdict ? json_loads(verdict, 0, NULL) : NULL, *r;
	if (verdict)
		assert_non_null(v);
	r = kp_run_verdict_reason(v, outcome, log);
	json_decref(v);
	return r;
}

static void test_the_deciding_check(void **state)
{
	/* A refusal names the refusing flag, not a warning before it. */
	json_t *r = reason(
	    "{\"status\":\"cheat_suspected\",\"phase\":\"static\",\"message\":\"refused\",\"flags\":["
	    "{\"check\":\"flop_floor\",\"severity\":\"warn\",\"message\":\"fast\"},"
	    "{\"check\":\"reads_reference\",\"severity\":\"refuse\",\"message\":\"calls get_inputs()\"}]}",
	    "cheat_suspected", "log");
	assert_string_equal(kp_json_str(r, "check", ""), "reads_reference");
	assert_string_equal(kp_json_str(r, "severity", ""), "refuse");
	assert_string_equal(kp_json_str(r, "message", ""), "calls get_inputs()");
	assert_string_equal(kp_json_str(r, "phase", ""), "static");
	json_decref(r);
	/* A wrong output names the check that failed it (a degenerate output). */
	r = reason(
	    "{\"flags\":[{\"check\":\"constant_output\",\"severity\":\"fail\",\"message\":\"all zeros\"}],"
	    "\"message\":\"outputs differ\"}",
	    "wrong_output", NULL);
	assert_string_equal(kp_json_str(r, "check", ""), "constant_output");
	json_decref(r);
}

static void test_no_check(void **state)
{
	/* A compile error: no check decided; the verdict's message, else the log's first line. */
	json_t *r = reason(
	    "{\"status\":\"compile_error\",\"phase\":\"build\",\"message\":\"nvcc failed\",\"flags\":[]}",
	    "compile_error", "cand.cu(7): error");
	assert_true(json_is_null(json_object_get(r, "check")));
	assert_string_equal(kp_json_str(r, "message", ""), "nvcc failed");
	json_decref(r);
	r = reason(NULL, "compile_error", "cand.cu(7): error: x\nmore lines");
	assert_string_equal(kp_json_str(r, "message", ""), "cand.cu(7): error: x");
	json_decref(r);
	/* A refusal flag on a wrong output is not what decided it. */
	r = reason("{\"flags\":[{\"check\":\"x\",\"severity\":\"refuse\",\"message\":\"m\"}],\"message\":"
	           "\"differ\"}",
	           "wrong_output", NULL);
	assert_true(json_is_null(json_object_get(r, "check")));
	assert_string_equal(kp_json_str(r, "message", ""), "differ");
	json_decref(r);
	/* Nothing to say: a message-less, log-less failure has a null message. */
	r = reason(NULL, "timeout", NULL);
	assert_true(json_is_null(json_object_get(r, "message")));
	json_decref(r);
}

static void test_nothing_for_correct(void **state)
{
	assert_null(
	    reason("{\"flags\":[{\"check\":\"flop_floor\",\"severity\":\"warn\"}]}", "correct", NULL));
	assert_null(reason(NULL, "pending", "x"));
	assert_null(reason(NULL, NULL, "x"));
}

static void test_long_message_cut(void **state)
{
	struct kp_buf v = KP_BUF_INIT;
	json_t *r;
	kp_buf_adds(&v, "{\"message\":\"");
	for (int i = 0; i < 700; i++)
		kp_buf_adds(&v, "\xc3\xa9"); /* two bytes each: the cut must not split one */
	kp_buf_adds(&v, "\"}");
	r = reason(v.buf, "runtime_error", NULL);
	assert_non_null(json_string_value(json_object_get(r, "message"))); /* still valid UTF-8 */
	assert_true(strlen(kp_json_str(r, "message", "")) <= 1024);
	json_decref(r);
	kp_buf_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_the_deciding_check),
	    cmocka_unit_test(test_no_check),
	    cmocka_unit_test(test_nothing_for_correct),
	    cmocka_unit_test(test_long_message_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
