/* Unit tests: the floor every evaluation is held to (lib/eval/floor.c): bytes at the GPU's DRAM
 * bandwidth with the L2 allowances, declared and counted FLOPs, a given floor, an unknown GPU; and
 * the checks on speed (below_floor, flop_floor, excessive_speedup, the speedups). */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/eval.h"
#include "kernelpro/task.h"

#define MB (1024.0 * 1024.0)
#define H200_BW 4.8e12

static void near(double got, double want)
{
	if (!(fabs(got - want) <= 1e-9 * fabs(want)))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* A correct, timed verdict on an H200 with the given median (ms) and measured bytes. */
static void timed(struct kp_verdict *v, double ms, double in_bytes, double out_bytes)
{
	kp_verdict_init(v);
	v->status = KP_STATUS_CORRECT;
	v->correct = 1;
	v->message = kp_xstrdup("correct on 5 of 5 trials");
	snprintf(v->gpu_name, sizeof(v->gpu_name), "NVIDIA H200");
	v->runtime = (struct kp_timing){ms, ms, 0, ms, ms, 100, ms};
	v->ref_runtime = (struct kp_timing){2 * ms, 2 * ms, 0, 2 * ms, 2 * ms, 100, 2 * ms};
	v->floor.in_bytes = in_bytes;
	v->floor.out_bytes = out_bytes;
	v->io_bytes = in_bytes + out_bytes;
}

static void kb_task(struct kp_task *t)
{
	kp_task_init(t);
	t->kind = KP_TASK_KERNELBENCH;
	t->precision = KP_DTYPE_F32;
}

static void test_bytes_floor(void **state)
{
	struct kp_task t;
	struct kp_eval_opts o;
	struct kp_verdict v;
	kb_task(&t);
	kp_eval_opts_init(&o);

	/* Softmax-like: 1 GiB in, 1 GiB out; everything crosses DRAM but the L2's worth of output. */
	timed(&v, 1.0, 1024 * MB, 1024 * MB);
	kp_eval_floor(&t, &o, &v);
	assert_string_equal(v.floor.source, "measured");
	assert_string_equal(v.floor.gpu, "h200-sxm");
	near(v.floor.bytes, 2048 * MB);
	near(v.floor.dram_bytes, 2048 * MB - 50 * MB);
	near(v.floor.time_s, (2048 * MB - 50 * MB) / H200_BW);
	near(v.floor.dram_bw, H200_BW);
	kp_verdict_release(&v);

	/* A small output stays in L2: only the input counts. Without the flush, small inputs do not either. */
	timed(&v, 1.0, 128 * MB, 16 * 1024);
	kp_eval_floor(&t, &o, &v);
	near(v.floor.dram_bytes, 128 * MB);
	o.l2_flush = 0;
	kp_eval_floor(&t, &o, &v);
	near(v.floor.dram_bytes, 78 * MB);
	kp_verdict_release(&v);
	timed(&v, 1.0, 16 * MB, 16 * MB);
	kp_eval_floor(&t, &o, &v);
	assert_true(v.floor.dram_bytes == 0 && v.floor.time_s == 0);
	kp_verdict_release(&v);
}

static void test_flops(void **state)
{
	struct kp_task t;
	struct kp_eval_opts o;
	struct kp_verdict v;
	kb_task(&t);
	kp_eval_opts_init(&o);

	/* Counted (KernelBench): reported, at the TF32 tensor rate for fp32, but not in the floor. */
	timed(&v, 1.0, 64 * MB, 64 * MB);
	v.flops = 1e12;
	kp_eval_floor(&t, &o, &v);
	assert_true(v.floor.flops_counted);
	near(v.floor.compute_peak, 494.7e12);
	near(v.floor.flop_time_s, 1e12 / 494.7e12);
	near(v.floor.time_s, (128 * MB - 50 * MB) / H200_BW);
	kp_verdict_release(&v);

	/* Declared (native task.json): part of the floor, at the precision's fastest rate. */
	kp_task_init(&t);
	t.kind = KP_TASK_NATIVE;
	t.precision = KP_DTYPE_BF16;
	t.flops = 1e12;
	timed(&v, 1.0, 64 * MB, 64 * MB);
	kp_eval_floor(&t, &o, &v);
	assert_false(v.floor.flops_counted);
	near(v.floor.compute_peak, 989.4e12);
	near(v.floor.time_s, 1e12 / 989.4e12);
	kp_verdict_release(&v);
}

static void test_given_and_unknown(void **state)
{
	struct kp_task t;
	struct kp_eval_opts o;
	struct kp_verdict v;
	kb_task(&t);
	kp_eval_opts_init(&o);
	o.floor_time_s = 0.5;
	timed(&v, 1.0, 64 * MB, 64 * MB);
	kp_eval_floor(&t, &o, &v);
	assert_string_equal(v.floor.source, "given");
	assert_true(v.floor.time_s == 0.5);
	kp_verdict_release(&v);

	o.floor_time_s = NAN;
	timed(&v, 1.0, 64 * MB, 64 * MB);
	snprintf(v.gpu_name, sizeof(v.gpu_name), "Some Future GPU");
	kp_eval_floor(&t, &o, &v);
	assert_string_equal(v.floor.source, "");
	assert_true(isnan(v.floor.time_s));
	near(v.floor.bytes, 128 * MB);
	kp_verdict_release(&v);
}

static void test_native_task_bytes(void **state)
{
	struct kp_task t;
	struct kp_error err = KP_ERROR_INIT;
	struct kp_eval_opts o;
	struct kp_verdict v;
	const char *json = "{\"inputs\":[{\"name\":\"x\",\"shape\":[4096,8192]}],"
			   "\"outputs\":[{\"name\":\"y\",\"shape\":[4096]}]}";
	kp_task_init(&t);
	KP_ASSERT_OK(kp_task_parse_native(&t, json, strlen(json), "/tmp/x", &err), &err);
	kp_eval_opts_init(&o);
	timed(&v, 1.0, NAN, NAN);
	kp_eval_floor(&t, &o, &v);
	near(v.floor.in_bytes, 128 * MB);
	near(v.floor.out_bytes, 16384);
	near(v.floor.time_s, 128 * MB / H200_BW);
	kp_verdict_release(&v);
	kp_task_release(&t);
}

static void test_speed_checks(void **state)
{
	struct kp_task t;
	struct kp_eval_opts o;
	struct kp_verdict v;
	const char *allow[] = {"below_floor", NULL};
	kb_task(&t);
	kp_eval_opts_init(&o);

	/* 1 GiB read in 0.1 ms would be 10 TB/s: refused, with the numbers in the flag. */
	timed(&v, 0.1, 1024 * MB, 0);
	kp_eval_speed_checks(&t, &o, &v);
	assert_int_equal(v.status, KP_STATUS_CHEAT_SUSPECTED);
	assert_non_null(strstr(kp_verdict_find_flag(&v, "below_floor")->message, "inputs read once"));
	assert_non_null(strstr(v.message, "below_floor"));
	near(v.speedup, 2.0);
	kp_verdict_release(&v);

	/* The same at a believable 0.3 ms: correct. Switched off: correct at 0.1 ms too. */
	timed(&v, 0.3, 1024 * MB, 0);
	kp_eval_speed_checks(&t, &o, &v);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	assert_int_equal(v.nflags, 0);
	kp_verdict_release(&v);
	o.allow_checks = allow;
	timed(&v, 0.1, 1024 * MB, 0);
	kp_eval_speed_checks(&t, &o, &v);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	kp_verdict_release(&v);
	o.allow_checks = NULL;

	/* Faster than the counted matrix FLOPs allow: a warning; and the speedup over torch.compile. */
	timed(&v, 0.5, 16 * MB, 16 * MB);
	v.flops = 1e12;
	v.compiled_ref_runtime = (struct kp_timing){0.75, 0.75, 0, 0.75, 0.75, 100, 0.75};
	kp_eval_speed_checks(&t, &o, &v);
	assert_int_equal(v.status, KP_STATUS_CORRECT);
	assert_non_null(kp_verdict_find_flag(&v, "flop_floor"));
	near(v.speedup_compile, 1.5);
	kp_verdict_release(&v);

	/* Not correct: nothing to judge, but the floor is still recorded. */
	timed(&v, 0.1, 1024 * MB, 0);
	v.status = KP_STATUS_WRONG_OUTPUT;
	kp_eval_speed_checks(&t, &o, &v);
	assert_int_equal(v.nflags, 0);
	assert_true(v.floor.time_s > 0);
	kp_verdict_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_floor),
		cmocka_unit_test(test_flops),
		cmocka_unit_test(test_given_and_unknown),
		cmocka_unit_test(test_native_task_bytes),
		cmocka_unit_test(test_speed_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
