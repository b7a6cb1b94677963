/* Unit tests: verdicts (flags, JSON round trip, golden schema), the harness protocol reader, the
 * check table, log excerpts, and the build cache key. */
#include "base/setup.h"

#include <math.h>
#include <signal.h>

#include "eval/build.h"
#include "eval/drivers.h"
#include "eval/excerpt.h"
#include "eval/harness.h"
#include "kp_test.h"
#include "kernelpro/eval.h"
#include "kernelpro/fs.h"
#include "kernelpro/json.h"

static void test_status_names(void **state)
{
	enum kp_status s;
	for (int i = KP_STATUS_NONE; i <= KP_STATUS_CHEAT_SUSPECTED; i++) {
		assert_int_equal(kp_status_parse(kp_status_name((enum kp_status)i), &s), 0);
		assert_int_equal(s, i);
	}
	assert_string_equal(kp_status_name(KP_STATUS_WRONG_OUTPUT), "wrong_output");
	assert_int_equal(kp_status_parse("fine", &s), KP_EINVAL);
}

static void test_flags(void **state)
{
	struct kp_verdict v;
	kp_verdict_init(&v);
	v.status = KP_STATUS_CORRECT;
	v.correct = 1;
	kp_verdict_flag(&v, "fast_math", KP_SEV_WARN, "flag %d", 1);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	kp_verdict_flag(&v, "host_time", KP_SEV_REFUSE, "%.1f ms hidden", 2.5);
	assert_int_equal(v.status, KP_STATUS_CHEAT_SUSPECTED);
	assert_false(v.correct);
	/* A failing check after a refusal keeps the refusal. */
	kp_verdict_flag(&v, "constant_output", KP_SEV_FAIL, "zeros");
	assert_int_equal(v.status, KP_STATUS_CHEAT_SUSPECTED);
	kp_verdict_release(&v);
	v.status = KP_STATUS_CORRECT;
	v.correct = 1;
	kp_verdict_flag(&v, "fast_math", KP_SEV_WARN, "flag %d", 1);
	kp_verdict_flag(&v, "host_time", KP_SEV_REFUSE, "%.1f ms hidden", 2.5);
	assert_int_equal(v.nflags, 2);
	assert_string_equal(kp_verdict_find_flag(&v, "host_time")->message, "2.5 ms hidden");
	assert_null(kp_verdict_find_flag(&v, "threads"));
	kp_verdict_release(&v);
	kp_verdict_release(&v);
	assert_int_equal(v.nflags, 0);
	assert_true(isnan(v.speedup));
	/* A failing check: the output is wrong, whatever the intent. */
	v.status = KP_STATUS_CORRECT;
	v.correct = 1;
	kp_verdict_flag(&v, "partial_match", KP_SEV_FAIL, "half the elements");
	assert_int_equal(v.status, KP_STATUS_WRONG_OUTPUT);
	assert_false(v.correct);
	kp_verdict_release(&v);
}

static void test_severity_names(void **state)
{
	enum kp_check_severity s;
	static const enum kp_check_severity all[] = {KP_SEV_WARN, KP_SEV_REFUSE, KP_SEV_FAIL};
	for (size_t i = 0; i < KP_ARRAY_SIZE(all); i++) {
		assert_int_equal(kp_check_severity_parse(kp_check_severity_name(all[i]), &s), 0);
		assert_int_equal(s, all[i]);
	}
	assert_string_equal(kp_check_severity_name(KP_SEV_FAIL), "fail");
	assert_int_equal(kp_check_severity_parse("deny", &s), KP_EINVAL);
	/* The degenerate-output checks are in the table, failing (wrong_output), on both kinds. */
	static const char *const fails[] = {"constant_output", "partial_match", "relative_error", "scaled_inputs"};
	for (size_t i = 0; i < KP_ARRAY_SIZE(fails); i++) {
		const struct kp_check_info *c = kp_check_find(fails[i]);
		assert_non_null(c);
		assert_int_equal(c->severity, KP_SEV_FAIL);
		assert_int_equal(c->applies, KP_APPLIES_BOTH);
	}
	assert_int_equal(kp_check_find("flop_floor")->severity, KP_SEV_WARN);
}

static void fill(struct kp_verdict *v)
{
	kp_verdict_init(v);
	v->status = KP_STATUS_CORRECT;
	v->compiled = v->correct = 1;
	v->message = kp_xstrdup("correct on 5 of 5 trials");
	v->phase = kp_xstrdup("done");
	memset(v->source_sha256, 'a', 64);
	v->trials_run = v->trials_passed = 5;
	v->max_abs_diff = 2.5e-7;
	v->mean_abs_diff = 1e-8;
	v->atol = v->rtol = 1e-4;
	v->runtime = (struct kp_timing){0.5, 0.51, 0.01, 0.49, 0.6, 100, 0.52};
	v->ref_runtime = (struct kp_timing){1.0, 1.01, 0.02, 0.98, 1.2, 100, 1.03};
	v->speedup = 2.0;
	v->compiled_ref_runtime = (struct kp_timing){0.8, 0.81, 0.01, 0.79, 0.9, 100, 0.82};
	v->speedup_compile = 1.6;
	v->io_bytes = 134217728;
	v->flops = 2e9;
	snprintf(v->precision, sizeof(v->precision), "f32");
	snprintf(v->ref_precision, sizeof(v->ref_precision), "f32");
	snprintf(v->cand_precision, sizeof(v->cand_precision), "f32");
	v->tf32_ref = v->tf32_cand = 0;
	snprintf(v->tol_source, sizeof(v->tol_source), "default");
	snprintf(v->reference, sizeof(v->reference), "eager PyTorch");
	v->floor.time_s = 2.8e-5;
	v->floor.bytes = v->floor.dram_bytes = v->floor.in_bytes = 134217728;
	v->floor.out_bytes = 0;
	v->floor.flops = 2e9;
	v->floor.flops_counted = 1;
	v->floor.flop_time_s = 4.05e-6;
	v->floor.dram_bw = 4.8e12;
	v->floor.compute_peak = 4.94e14;
	snprintf(v->floor.source, sizeof(v->floor.source), "measured");
	snprintf(v->floor.gpu, sizeof(v->floor.gpu), "h200-sxm");
	snprintf(v->scaled.status, sizeof(v->scaled.status), "passed");
	v->scaled.scale = 64;
	v->loop = (struct kp_loop){4000, 10.5, 12.5};
	v->gpu = 0;
	snprintf(v->gpu_name, sizeof(v->gpu_name), "NVIDIA H200");
	v->build_s = 0.9;
	v->run_s = 2.0;
	v->total_s = 3.0;
	v->parts[0] = (struct kp_time_part){"candidate", 0.75, 9, 0.5};
	v->parts[1] = (struct kp_time_part){"other", 0.25, 0, 0};
	v->nparts = 2;
	kp_verdict_flag(v, "torch_ops", KP_SEV_WARN, "keeps 1 of 2 ops");
}

static void test_json_golden_and_round_trip(void **state)
{
	struct kp_verdict v, back;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_buf a = KP_BUF_INIT, b = KP_BUF_INIT, want = KP_BUF_INIT;
	json_t *j, *j2;

	fill(&v);
	j = kp_verdict_to_json(&v);
	kp_json_dump_buf(j, &a, 0);
	kp_buf_addch(&a, '\n');
	if (getenv("KP_REGEN_GOLDEN"))
		kp_write_file_atomic(kp_test_path("tests/golden/eval/verdict-correct.json"), a.buf, a.len, NULL);
	kp_test_read("tests/golden/eval/verdict-correct.json", &want);
	assert_string_equal(a.buf, want.buf);

	kp_verdict_init(&back);
	KP_ASSERT_OK(kp_verdict_from_json(&back, j, &err), &err);
	j2 = kp_verdict_to_json(&back);
	kp_json_dump_buf(j2, &b, 0);
	kp_buf_addch(&b, '\n');
	assert_string_equal(a.buf, b.buf);
	assert_int_equal(back.status, KP_STATUS_CORRECT);
	assert_true(back.runtime.median_ms == 0.5);
	assert_int_equal(back.loop.iterations, 4000);
	assert_true(back.floor.time_s == 2.8e-5 && back.floor.flops_counted);
	assert_string_equal(back.scaled.status, "passed");
	assert_int_equal(back.tf32_cand, 0);
	assert_int_equal(back.nparts, 2);
	assert_string_equal(back.parts[0].name, "candidate");
	assert_true(back.parts[0].seconds == 0.75 && back.parts[0].calls == 9 &&
	            back.parts[0].longest == 0.5);
	assert_string_equal(back.parts[1].name, "other");
	{
		/* The claim a report can quote: both speedups, precision, TF32, tolerance, trials. */
		const char *claim = kp_json_str(j, "claim", "");
		assert_non_null(strstr(claim, "2x over eager PyTorch (0.5 ms vs 1 ms, medians of 100 trials)"));
		assert_non_null(strstr(claim, "1.6x over torch.compile (0.8 ms)"));
		assert_non_null(strstr(claim, "both sides in f32, TF32 off on both"));
		assert_non_null(strstr(claim, "atol=0.0001, rtol=0.0001 (default for f32) on 5 of 5 trials"));
		assert_non_null(strstr(claim, "scaled x64"));
	}
	json_decref(j);
	json_decref(j2);
	kp_verdict_release(&v);
	kp_verdict_release(&back);
	kp_buf_release(&a);
	kp_buf_release(&b);
	kp_buf_release(&want);
}

static void test_json_nulls_and_errors(void **state)
{
	struct kp_verdict v;
	struct kp_error err = KP_ERROR_INIT;
	json_t *j;
	kp_verdict_init(&v);
	v.status = KP_STATUS_COMPILE_ERROR;
	j = kp_verdict_to_json(&v);
	assert_true(json_is_null(json_object_get(j, "runtime")));
	assert_true(json_is_null(json_object_get(j, "speedup")));
	assert_true(json_is_null(json_object_get(j, "loop")));
	assert_true(json_is_null(json_object_get(j, "claim")));
	assert_true(json_is_null(json_object_get(j, "scaled_trial")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "conditions"), "tf32")) == 0);
	assert_string_equal(kp_json_str(j, "status", ""), "compile_error");
	json_decref(j);
	j = json_pack("{s:s}", "status", "great");
	assert_int_equal(kp_verdict_from_json(&v, j, &err), KP_EPARSE);
	json_decref(j);
	assert_int_equal(kp_verdict_from_json(&v, json_null(), &err), KP_EPARSE);
	kp_verdict_release(&v);
}

/* Every key the schema requires is written, and every key written is in the schema, at the top level
 * and in the nested objects it describes (docs/verdict.schema.json stays true). */
static void expect_schema(const json_t *schema, const json_t *v, const char *where)
{
	const json_t *props = json_object_get(schema, "properties"), *req = json_object_get(schema, "required"), *x;
	const char *key;
	size_t i;
	json_array_foreach(req, i, x) {
		if (!json_object_get(v, json_string_value(x)))
			fail_msg("%s: required key '%s' not written", where, json_string_value(x));
	}
	json_object_foreach((json_t *)v, key, x) {
		const json_t *p = json_object_get(props, key);
		if (!p)
			fail_msg("%s: key '%s' is not in the schema", where, key);
		if (json_is_object(x) && json_object_get(p, "properties"))
			expect_schema(p, x, key);
	}
}

static void test_schema(void **state)
{
	struct kp_verdict v;
	struct kp_error err = KP_ERROR_INIT;
	json_t *schema = NULL, *j;
	KP_ASSERT_OK(kp_json_load_file(kp_test_path("docs/verdict.schema.json"), 1 << 20, &schema, &err), &err);
	fill(&v);
	j = kp_verdict_to_json(&v);
	expect_schema(schema, j, "verdict");
	json_decref(j);
	kp_verdict_release(&v);
	j = kp_verdict_to_json(&v); /* an empty one: nulls where nothing was measured */
	expect_schema(schema, j, "empty verdict");
	json_decref(j);
	json_decref(schema);
}

/* --- the harness protocol ---------------------------------------------------------------------- */

static void child_init(struct kp_child *c, int exit_code, int sig, int timed_out, const char *err)
{
	kp_child_init(c);
	c->exit_code = exit_code;
	c->term_signal = sig;
	c->timed_out = (unsigned)timed_out;
	c->timeout_ms = 5000;
	kp_buf_adds(&c->err, err);
}

static void test_harness_result(void **state)
{
	const char *out = "garbage line\n{\"phase\":\"build\",\"limit_s\":300}\nnot json {\n"
			  "{\"phase\":\"correctness\",\"limit_s\":180}\n"
			  "{\"result\":{\"status\":\"correct\",\"message\":\"ok\",\"compiled\":true,\"trials_run\":5,"
			  "\"trials_passed\":5,\"max_abs_diff\":1e-7,\"runtime\":{\"median_ms\":0.5,\"mean_ms\":0.5,"
			  "\"std_ms\":0,\"min_ms\":0.5,\"max_ms\":0.5,\"trials\":100,\"host_median_ms\":0.6},"
			  "\"flags\":[{\"check\":\"output_poison\",\"severity\":\"warn\",\"message\":\"m\"}],"
			  "\"fast_builds\":[{\"lib\":\"/c/k/lib.so\",\"cached\":true}],\"gpu_name\":\"H200\","
			  "\"flops\":2e9,\"in_bytes\":1024,\"out_bytes\":512,\"reference\":\"eager PyTorch\","
			  "\"precision\":{\"reference\":\"f32\",\"candidate\":\"f32\"},"
			  "\"tf32\":{\"reference\":false,\"candidate\":false},"
			  "\"scaled_trial\":{\"status\":\"skipped\",\"scale\":64,\"reason\":\"NaN\"},"
			  "\"runtime_evidence\":{\"recorded\":true,\"kernels\":{\"void k(float*)\":1},"
			  "\"own_kernels\":[\"void k(float*)\"]}}}\n";
	struct kp_harness_out h;
	struct kp_child c;
	struct kp_verdict v;
	struct kp_error err = KP_ERROR_INIT;

	kp_harness_parse(out, strlen(out), &h);
	assert_non_null(h.result);
	assert_string_equal(h.phase, "correctness");
	assert_int_equal(h.lines, 3);
	child_init(&c, 0, 0, 0, "");
	kp_verdict_init(&v);
	KP_ASSERT_OK(kp_harness_apply(&h, &c, &v, &err), &err);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	assert_true(v.correct && v.compiled && v.build_cached);
	assert_string_equal(v.artifact, "/c/k/lib.so");
	assert_true(v.runtime.median_ms == 0.5 && v.runtime.trials == 100);
	assert_int_equal(v.nflags, 1);
	assert_string_equal(v.gpu_name, "H200");
	assert_true(v.flops == 2e9 && v.floor.in_bytes == 1024 && v.floor.out_bytes == 512);
	assert_string_equal(v.reference, "eager PyTorch");
	assert_string_equal(v.cand_precision, "f32");
	assert_true(v.tf32_ref == 0 && v.tf32_cand == 0);
	assert_string_equal(v.scaled.status, "skipped");
	assert_string_equal(v.scaled.reason, "NaN");
	/* The kernels it launched reach the verdict, and its JSON. */
	assert_non_null(v.evidence);
	assert_string_equal(json_string_value(json_array_get(json_object_get(v.evidence, "own_kernels"), 0)),
			    "void k(float*)");
	{
		json_t *j = kp_verdict_to_json(&v);
		assert_true(json_is_true(json_object_get(json_object_get(j, "runtime_evidence"), "recorded")));
		json_decref(j);
	}
	kp_verdict_release(&v);
	kp_child_release(&c);
	kp_harness_release(&h);
}

/* The adapter's correctness_parts reach the verdict in its order; entries no clock gives are left out. */
static void test_harness_parts(void **state)
{
	const char *out =
	    "{\"result\":{\"status\":\"correct\",\"message\":\"ok\",\"flags\":[],"
	    "\"timeline\":\"start 0.20, build 0.17, load 0.00, correctness 4.02, timing 0.05\","
	    "\"correctness_parts\":{\"inputs\":{\"seconds\":0.5,\"calls\":8,\"longest\":0.25},"
	    "\"candidate\":{\"seconds\":3,\"calls\":9,\"longest\":2.5},"
	    "\"negative\":{\"seconds\":-1,\"calls\":1,\"longest\":0},"
	    "\"longer_than_all\":{\"seconds\":1,\"calls\":2,\"longest\":2},"
	    "\"no_calls\":{\"seconds\":1,\"longest\":1},"
	    "\"a_name_longer_than_the_verdict_keeps\":{\"seconds\":1,\"calls\":1,\"longest\":1},"
	    "\"other\":{\"seconds\":0.52,\"calls\":0,\"longest\":0}}}}\n";
	struct kp_harness_out h;
	struct kp_child c;
	struct kp_verdict v;
	struct kp_error err = KP_ERROR_INIT;
	json_t *j;

	kp_harness_parse(out, strlen(out), &h);
	child_init(&c, 0, 0, 0, "");
	kp_verdict_init(&v);
	KP_ASSERT_OK(kp_harness_apply(&h, &c, &v, &err), &err);
	assert_int_equal(v.nparts, 3);
	assert_string_equal(v.parts[0].name, "inputs");
	assert_true(v.parts[0].seconds == 0.5 && v.parts[0].calls == 8 && v.parts[0].longest == 0.25);
	assert_string_equal(v.parts[1].name, "candidate");
	assert_true(v.parts[1].seconds == 3 && v.parts[1].longest == 2.5);
	assert_string_equal(v.parts[2].name, "other");
	assert_int_equal(v.parts[2].calls, 0);
	j = kp_verdict_to_json(&v);
	assert_true(
	    kp_json_num(json_object_get(json_object_get(json_object_get(j, "seconds"), "correctness_parts"),
	                                "candidate"),
	                "seconds", 0) == 3);
	json_decref(j);
	kp_verdict_release(&v);
	j = kp_verdict_to_json(&v); /* none: null */
	assert_true(json_is_null(json_object_get(json_object_get(j, "seconds"), "correctness_parts")));
	json_decref(j);
	kp_child_release(&c);
	kp_harness_release(&h);
}

static void test_harness_died(void **state)
{
	struct kp_harness_out h;
	struct kp_child c;
	struct kp_verdict v;
	const char *out = "{\"phase\":\"correctness\",\"limit_s\":20}\n";

	/* Killed by a signal mid-phase: a runtime error naming the phase, with stderr in the log. */
	kp_harness_parse(out, strlen(out), &h);
	child_init(&c, -1, SIGSEGV, 0, "Fatal Python error: Segmentation fault\n  File \"cand.py\", line 7\n");
	kp_verdict_init(&v);
	assert_int_equal(kp_harness_apply(&h, &c, &v, NULL), 0);
	assert_int_equal(v.status, KP_STATUS_RUNTIME_ERROR);
	assert_non_null(strstr(v.message, "signal 11"));
	assert_non_null(strstr(v.message, "correctness"));
	assert_non_null(strstr(v.log, "cand.py"));
	kp_verdict_release(&v);
	kp_child_release(&c);

	/* The phase watchdog (faulthandler) or the C harness's alarm (exit 124): a timeout. */
	child_init(&c, 1, 0, 0, "Timeout (0:00:20)!\nThread 0x1 (most recent call first):\n");
	kp_verdict_init(&v);
	assert_int_equal(kp_harness_apply(&h, &c, &v, NULL), 0);
	assert_int_equal(v.status, KP_STATUS_TIMEOUT);
	assert_non_null(strstr(v.message, "limit 20 s"));
	kp_verdict_release(&v);
	kp_child_release(&c);
	child_init(&c, 124, 0, 0, "");
	kp_verdict_init(&v);
	kp_harness_apply(&h, &c, &v, NULL);
	assert_int_equal(v.status, KP_STATUS_TIMEOUT);
	kp_verdict_release(&v);
	kp_child_release(&c);
	/* kernelpro's own limit on the whole child. */
	child_init(&c, -1, SIGKILL, 1, "");
	kp_verdict_init(&v);
	kp_harness_apply(&h, &c, &v, NULL);
	assert_int_equal(v.status, KP_STATUS_TIMEOUT);
	kp_verdict_release(&v);
	kp_child_release(&c);
	kp_harness_release(&h);

	/* Nothing at all on stdout. */
	kp_harness_parse("", 0, &h);
	child_init(&c, 2, 0, 0, "python3: can't open file\n");
	kp_verdict_init(&v);
	kp_harness_apply(&h, &c, &v, NULL);
	assert_int_equal(v.status, KP_STATUS_RUNTIME_ERROR);
	assert_non_null(strstr(v.message, "phase 'start'"));
	kp_verdict_release(&v);
	kp_child_release(&c);
	kp_harness_release(&h);
}

static void test_harness_error_is_an_error(void **state)
{
	const char *out = "{\"result\":{\"status\":\"harness_error\",\"message\":\"no usable GPU\"}}\n";
	struct kp_harness_out h;
	struct kp_child c;
	struct kp_verdict v;
	struct kp_error err = KP_ERROR_INIT;
	kp_harness_parse(out, strlen(out), &h);
	child_init(&c, 0, 0, 0, "");
	kp_verdict_init(&v);
	assert_int_equal(kp_harness_apply(&h, &c, &v, &err), KP_ENODEV);
	assert_non_null(strstr(kp_error_msg(&err), "no usable GPU"));
	kp_verdict_release(&v);
	kp_child_release(&c);
	kp_harness_release(&h);
}

/* --- checks, excerpts, cache keys ----------------------------------------------------------------- */

static void test_check_table(void **state)
{
	size_t n;
	const struct kp_check_info *c = kp_checks(&n);
	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++) {
		assert_true(strlen(c[i].id) < sizeof(((struct kp_flag *)0)->check));
		assert_true(strlen(c[i].explain) > 60);
		assert_ptr_equal(kp_check_find(c[i].id), &c[i]);
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(c[i].id, c[j].id);
	}
	assert_null(kp_check_find("no_such_check"));
}

static void test_excerpt(void **state)
{
	struct kp_buf text = KP_BUF_INIT, out = KP_BUF_INIT;
	for (int i = 0; i < 500; i++)
		kp_buf_addf(&text, "line %d fine\n", i);
	kp_buf_adds(&text, "cand.cu(12): error: identifier \"x\" is undefined\n");
	for (int i = 0; i < 500; i++)
		kp_buf_addf(&text, "more %d\n", i);
	kp_excerpt(text.buf, text.len, 400, 1, &out);
	assert_true(out.len <= 420);
	assert_non_null(strstr(out.buf, "identifier \"x\" is undefined"));
	assert_non_null(strstr(out.buf, "line 499 fine"));
	kp_buf_reset(&out);
	/* Short text: whole. No error lines: the tail. */
	kp_excerpt("short", 5, 400, 1, &out);
	assert_string_equal(out.buf, "short");
	kp_buf_reset(&out);
	kp_buf_reset(&text);
	for (int i = 0; i < 500; i++)
		kp_buf_addf(&text, "step %d\n", i);
	kp_excerpt(text.buf, text.len, 100, 1, &out);
	assert_true(out.len <= 100);
	assert_non_null(strstr(out.buf, "step 499"));
	kp_buf_release(&text);
	kp_buf_release(&out);
}

static void test_build_key(void **state)
{
	const char *flags[] = {"-O3", "-lineinfo"}, *bad[] = {"-O3\n"}, *extra[] = {"header"};
	char k1[65], k2[65], k3[65], k4[65];
	KP_ASSERT_OK(kp_build_key("src", 3, flags, 2, "V13.0.88", "sm_90a", NULL, 0, k1), NULL);
	/* Golden: the same value harness/kernelpro/build.py computes (t0503 checks them together). */
	assert_string_equal(k1, "327a425c2d8135f2fd8887ad678c1a648d2f86798b60413178cc63045e7528bf");
	KP_ASSERT_OK(kp_build_key("src", 3, flags, 1, "V13.0.88", "sm_90a", NULL, 0, k2), NULL);
	KP_ASSERT_OK(kp_build_key("src", 3, flags, 2, "V13.0.88", "sm_90", NULL, 0, k3), NULL);
	KP_ASSERT_OK(kp_build_key("src", 3, flags, 2, "V13.0.88", "sm_90a", extra, 1, k4), NULL);
	assert_string_not_equal(k1, k2);
	assert_string_not_equal(k1, k3);
	assert_string_not_equal(k1, k4);
	assert_int_equal(kp_build_key("src", 3, bad, 1, "v", "sm_90", NULL, 0, k2), KP_EINVAL);
	{
		char buf[16];
		assert_string_equal(kp_arch_for_cc(9, 0, buf, sizeof(buf)), "sm_90a");
		assert_string_equal(kp_arch_for_cc(8, 6, buf, sizeof(buf)), "sm_86");
		assert_string_equal(kp_arch_for_cc(10, 0, buf, sizeof(buf)), "sm_100a");
	}
	{
		/* SASS for the GPU only (no compute_90 PTX pass); "compute_" keeps its meaning, PTX only.
		 * tests/python/test_build.py test_nvcc_target holds the Python builder to the same. */
		char buf[96];
		assert_string_equal(kp_nvcc_target("sm_90a", buf, sizeof(buf)), "-gencode=arch=compute_90a,code=sm_90a");
		assert_string_equal(kp_nvcc_target("sm_86", buf, sizeof(buf)), "-gencode=arch=compute_86,code=sm_86");
		assert_string_equal(kp_nvcc_target("sm_100a", buf, sizeof(buf)),
				    "-gencode=arch=compute_100a,code=sm_100a");
		assert_string_equal(kp_nvcc_target("compute_90", buf, sizeof(buf)), "-arch=compute_90");
	}
}

static void test_opts_defaults(void **state)
{
	struct kp_eval_opts o;
	kp_eval_opts_init(&o);
	assert_int_equal(o.seed, 42);
	assert_int_equal(o.correct_trials, 5);
	assert_int_equal(o.warmup, 3);
	assert_int_equal(o.timing_trials, 100);
	assert_int_equal(o.discard_first, 1);
	assert_true(o.l2_flush && o.time_candidate && o.time_reference && o.sanitize);
	assert_true(isnan(o.atol) && isnan(o.floor_time_s));
	assert_true(o.floor_slack == 0.9 && o.excessive_speedup == 10);
}

/* The child's GPU: CUDA_VISIBLE_DEVICES's entry for the index when that is set, else the index; TF32 off. */
static void test_gpu_env(void **state)
{
	struct kp_strvec env = KP_STRVEC_INIT;
	struct kp_error err = KP_ERROR_INIT;
	(void)state;
	unsetenv("CUDA_VISIBLE_DEVICES");
	assert_int_equal(kp_eval_gpu_env(2, &env, &err), 0);
	assert_int_equal(env.n, 3);
	assert_string_equal(env.v[0], "CUDA_VISIBLE_DEVICES=2");
	assert_string_equal(env.v[1], "NVIDIA_TF32_OVERRIDE=0");
	assert_string_equal(env.v[2], "TRITON_F32_DEFAULT=ieee");
	kp_strvec_release(&env);
	setenv("CUDA_VISIBLE_DEVICES", "GPU-5e1f,3", 1);
	assert_int_equal(kp_eval_gpu_env(0, &env, &err), 0);
	assert_string_equal(env.v[0], "CUDA_VISIBLE_DEVICES=GPU-5e1f");
	kp_strvec_release(&env);
	assert_int_equal(kp_eval_gpu_env(1, &env, &err), 0);
	assert_string_equal(env.v[0], "CUDA_VISIBLE_DEVICES=3");
	kp_strvec_release(&env);
	assert_int_equal(kp_eval_gpu_env(2, &env, &err), KP_EINVAL);
	assert_string_equal(err.msg, "gpu 2: CUDA_VISIBLE_DEVICES='GPU-5e1f,3' lists only 2 device(s)");
	kp_strvec_release(&env);
	kp_error_clear(&err);
	assert_int_equal(kp_eval_gpu_env(-1, &env, &err), KP_EINVAL);
	assert_string_equal(err.msg, "gpu index -1: must be 0 or more");
	kp_strvec_release(&env);
	unsetenv("CUDA_VISIBLE_DEVICES");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_severity_names),
		cmocka_unit_test(test_json_golden_and_round_trip),
		cmocka_unit_test(test_json_nulls_and_errors),
		cmocka_unit_test(test_schema),
		cmocka_unit_test(test_harness_result),
		cmocka_unit_test(test_harness_parts),
		cmocka_unit_test(test_harness_died),
		cmocka_unit_test(test_harness_error_is_an_error),
		cmocka_unit_test(test_check_table),
		cmocka_unit_test(test_excerpt),
		cmocka_unit_test(test_build_key),
		cmocka_unit_test(test_opts_defaults),
		cmocka_unit_test(test_gpu_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
