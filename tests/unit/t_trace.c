/* Unit tests: tracer JSON and nsys stats CSV parsing, summaries, and bad input. */
#include "base/setup.h"

#include "kp_test.h"
#include "kernelpro/profile.h"

#define DIR "tests/golden/trace/"

static void test_tracer_json(void **state)
{
	struct kp_trace t = KP_TRACE_INIT;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_test_read(DIR "tracer.json", &b);
	KP_ASSERT_OK(kp_trace_parse_json(&t, "tracer.json", b.buf, b.len, &err), &err);
	assert_true(t.timeline);
	assert_int_equal(t.nevents, 11);
	assert_int_equal(t.nkernels, 3);
	assert_int_equal(t.kernel_ns, 2000 + 2000 + 2500);
	assert_int_equal(t.span_ns, 1417500 - 1405000);
	assert_int_equal(t.gap_ns, 2000 + 4000); /* idle between the kernels */
	assert_int_equal(t.nsyncs, 1);
	assert_int_equal(t.nmemcpys, 1);
	assert_int_equal(t.napi, 5);
	assert_int_equal(t.api_launch_ns, 4000 + 3000 + 3000);
	for (size_t i = 1; i < t.nevents; i++) /* sorted by start */
		assert_true(t.events[i - 1].start_ns <= t.events[i].start_ns);
	assert_string_equal(t.events[0].name, "cudaMemcpy_v3020");
	assert_int_equal(t.events[1].bytes, 268435456);
	assert_string_equal(kp_trace_kind_name(t.events[1].kind), "memcpy");
	{
		const struct kp_trace_event *k = NULL;
		for (size_t i = 0; i < t.nevents && !k; i++)
			if (t.events[i].kind == KP_TRACE_KERNEL)
				k = &t.events[i];
		assert_int_equal(k->block[0], 32);
		assert_int_equal(k->stream, 7);
		assert_int_equal(k->count, 1);
	}
	assert_int_equal(t.warnings.len, 0);
	kp_trace_release(&t);
	kp_trace_release(&t);
	kp_buf_release(&b);
}

static void test_nsys_csv(void **state)
{
	struct kp_trace t = KP_TRACE_INIT;
	struct kp_buf b = KP_BUF_INIT;
	struct kp_error err = KP_ERROR_INIT;
	kp_test_read(DIR "nsys_stats.csv", &b);
	KP_ASSERT_OK(kp_trace_parse_nsys_csv(&t, "nsys_stats.csv", b.buf, b.len, &err), &err);
	assert_false(t.timeline);
	assert_int_equal(t.nevents, 7);
	assert_int_equal(t.nkernels, 202);
	assert_int_equal(t.kernel_ns, 117768480 + 9320 + 232992);
	assert_int_equal(t.span_ns, 0); /* summaries have no timeline */
	assert_int_equal(t.nsyncs, 3);
	assert_int_equal(t.nmemcpys, 2);
	assert_int_equal(t.napi, 210);
	assert_int_equal(t.api_launch_ns, 680000); /* grouped "680,000" */
	assert_string_equal(t.events[1].name, "tiny_kernel(float *)");
	assert_int_equal(t.events[1].count, 200);
	kp_trace_release(&t);
	kp_buf_release(&b);
}

static void expect_error(const char *text, const char *needle)
{
	struct kp_trace t = KP_TRACE_INIT;
	struct kp_error err = KP_ERROR_INIT;
	assert_int_equal(kp_trace_parse_json(&t, "bad.json", text, strlen(text), &err), KP_EPARSE);
	if (!strstr(kp_error_msg(&err), needle))
		fail_msg("error '%s' lacks '%s'", kp_error_msg(&err), needle);
	kp_trace_release(&t);
}

static void test_bad_input(void **state)
{
	struct kp_trace t = KP_TRACE_INIT;
	struct kp_error err = KP_ERROR_INIT;
	const char *cut = "{\"format\": \"kernelpro-trace\", \"version\": 1, \"events\": [{\"kind\": \"kernel\", \"na";
	const char *partial = "{\"format\":\"kernelpro-trace\",\"version\":1,\"dropped\":3,\"events\":["
			      "{\"kind\":\"kernel\",\"name\":\"k\",\"start\":1,\"end\":2},{\"kind\":\"texture\",\"start\":1,\"end\":2}]}";
	expect_error(cut, "bad.json: line 1");
	expect_error("{\"format\": \"other\"}", "not a kernelpro trace");
	expect_error("{\"format\": \"kernelpro-trace\", \"version\": 2, \"events\": []}", "version 2");
	expect_error("{\"format\": \"kernelpro-trace\", \"version\": 1}", "no \"events\"");
	expect_error("{\"format\":\"kernelpro-trace\",\"version\":1,\"events\":[{\"kind\":\"kernel\",\"start\":5,\"end\":2}]}",
		     "events[0]: \"end\" is before");
	expect_error("{\"format\":\"kernelpro-trace\",\"version\":1,\"events\":[{\"kind\":\"kernel\",\"start\":-5,\"end\":2}]}",
		     "events[0]");
	/* no events at all (found by fuzzing: qsort of an empty array) */
	{
		const char *none = "{\"format\":\"kernelpro-trace\",\"version\":1,\"complete\":true,\"events\":[]}";
		KP_ASSERT_OK(kp_trace_parse_json(&t, "none.json", none, strlen(none), &err), &err);
		assert_int_equal(t.nkernels, 0);
		assert_int_equal(t.span_ns, 0);
		kp_trace_release(&t);
	}
	/* dropped records, an unknown kind and no clean exit: parsed, with warnings */
	KP_ASSERT_OK(kp_trace_parse_json(&t, "p.json", partial, strlen(partial), &err), &err);
	assert_int_equal(t.nkernels, 1);
	assert_int_equal(t.ndropped, 3);
	assert_non_null(strstr(t.warnings.buf, "lost 3 records"));
	assert_non_null(strstr(t.warnings.buf, "unknown kind 'texture'"));
	assert_non_null(strstr(t.warnings.buf, "did not reach a clean exit"));
	kp_trace_release(&t);
	assert_int_equal(kp_trace_parse_nsys_csv(&t, "x.csv", "hello\n", 6, &err), KP_EPARSE);
	assert_non_null(strstr(kp_error_msg(&err), "x.csv: no nsys summary table"));
	kp_trace_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracer_json),
		cmocka_unit_test(test_nsys_csv),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
