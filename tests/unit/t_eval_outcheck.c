/* Unit tests: the degenerate-output checks (lib/eval/outcheck.c) against the cases the Python twin is
 * held to (tests/golden/eval/outcheck-cases.json), and the group classification on arrays. */
#include "base/setup.h"

#include <math.h>

#include "eval/outcheck.h"
#include "kp_test.h"
#include "kernelpro/json.h"
#include "kernelpro/task.h"

static json_t *cases(void)
{
	struct kp_error err = KP_ERROR_INIT;
	json_t *j = NULL;
	KP_ASSERT_OK(kp_json_load_file(kp_test_path("tests/golden/eval/outcheck-cases.json"), 1 << 20, &j, &err), &err);
	return j;
}

static int dtype_of(const json_t *c)
{
	enum kp_dtype d;
	assert_int_equal(kp_dtype_parse(kp_json_str(c, "dtype", ""), &d), 0);
	return (int)d;
}

static void near(double got, double want)
{
	if (!(fabs(got - want) <= 1e-12 * fabs(want)))
		fail_msg("got %.17g, want %.17g", got, want);
}

static void test_bounds(void **state)
{
	json_t *j = cases(), *c;
	size_t i;
	json_array_foreach(json_object_get(j, "bounds"), i, c) {
		struct kp_outbounds b;
		kp_outcheck_bounds(dtype_of(c), kp_json_num(c, "atol", NAN), kp_json_num(c, "rtol", NAN), &b);
		near(b.rel, kp_json_num(c, "rel", NAN));
		near(b.noise, kp_json_num(c, "noise", NAN));
		assert_true(b.frac == 0.01);
	}
	json_decref(j);
	assert_true(kp_outcheck_applies(KP_DTYPE_BF16));
	assert_false(kp_outcheck_applies(KP_DTYPE_I32));
	assert_false(kp_outcheck_applies(KP_DTYPE_U8));
}

static void expect_layout(const json_t *want, const struct kp_outlayout *got)
{
	if (json_is_null(want)) {
		assert_int_equal(got->nseg, 0);
		return;
	}
	assert_int_equal(got->inner, json_integer_value(json_array_get(want, 0)));
	assert_int_equal(got->nseg, json_integer_value(json_array_get(want, 1)));
	assert_int_equal(got->size, json_integer_value(json_array_get(want, 2)));
}

static void test_layouts(void **state)
{
	json_t *j = cases(), *c;
	size_t i;
	json_array_foreach(json_object_get(j, "layouts"), i, c) {
		long long shape[8];
		const json_t *s = json_object_get(c, "shape");
		int nd = (int)json_array_size(s);
		struct kp_outlayout rows, chans;
		for (int d = 0; d < nd; d++)
			shape[d] = json_integer_value(json_array_get(s, (size_t)d));
		kp_outcheck_layouts(shape, nd, &rows, &chans);
		expect_layout(json_object_get(c, "rows"), &rows);
		expect_layout(json_object_get(c, "chans"), &chans);
	}
	json_decref(j);
}

static void groups_from(const json_t *o, struct kp_outgroups *g)
{
	memset(g, 0, sizeof(*g));
	g->worst = -1;
	if (!json_is_object(o))
		return;
	g->n = kp_json_int(o, "n", 0);
	g->size = kp_json_int(o, "size", 0);
	g->considered = kp_json_int(o, "considered", 0);
	g->bad = kp_json_int(o, "bad", 0);
	g->worst = kp_json_int(o, "worst", -1);
	g->worst_rel = kp_json_num(o, "worst_rel", 0);
}

static void test_judge(void **state)
{
	json_t *j = cases(), *c;
	size_t i;
	json_array_foreach(json_object_get(j, "judge"), i, c) {
		const json_t *st = json_object_get(c, "stats"), *skip = json_object_get(c, "skip"), *x;
		const char *want = kp_json_str(c, "expect", NULL);
		struct kp_outstats s;
		struct kp_outbounds b;
		unsigned off = 0;
		char msg[1024];
		size_t k;
		enum kp_outcheck got;

		kp_outcheck_bounds(dtype_of(c), kp_json_num(c, "atol", NAN), kp_json_num(c, "rtol", NAN), &b);
		s.n = kp_json_int(st, "n", 0);
		s.ref_min = kp_json_num(st, "ref_min", 0);
		s.ref_max = kp_json_num(st, "ref_max", 0);
		s.ref_maxabs = kp_json_num(st, "ref_maxabs", 0);
		s.ref_sumsq = kp_json_num(st, "ref_sumsq", 0);
		s.out_min = kp_json_num(st, "out_min", 0);
		s.out_max = kp_json_num(st, "out_max", 0);
		s.diff_sumsq = kp_json_num(st, "diff_sumsq", 0);
		s.nbad = kp_json_int(st, "nbad", 0);
		s.first_bad = kp_json_int(st, "first_bad", -1);
		s.first_got = kp_json_num(st, "first_got", 0);
		s.first_want = kp_json_num(st, "first_want", 0);
		groups_from(json_object_get(st, "rows"), &s.rows);
		groups_from(json_object_get(st, "chans"), &s.chans);
		json_array_foreach(skip, k, x) {
			for (int id = KP_OUTCHECK_CONSTANT; id <= KP_OUTCHECK_RELATIVE; id++)
				if (!strcmp(json_string_value(x), kp_outcheck_id((enum kp_outcheck)id)))
					off |= 1u << id;
		}
		got = kp_outcheck_judge(&s, &b, off, "y", kp_json_str(c, "coords", NULL), msg, sizeof(msg));
		if (strcmp(kp_outcheck_id(got), want ? want : ""))
			fail_msg("%s: got '%s' (%s), want '%s'", kp_json_str(c, "case", "?"), kp_outcheck_id(got), msg,
				 want ? want : "none");
		assert_int_equal(msg[0] == '\0', got == KP_OUTCHECK_OK);
		json_array_foreach(json_object_get(c, "message_has"), k, x) {
			if (!strstr(msg, json_string_value(x)))
				fail_msg("%s: message '%s' lacks '%s'", kp_json_str(c, "case", "?"), msg, json_string_value(x));
		}
	}
	json_decref(j);
}

static void test_groups(void **state)
{
	/* Four rows of 64: a normal one, one at 1e-5 of the scale and wrong, one of rounding noise and
	 * wrong (not counted), one exactly right. */
	double r2[4] = {64.0, 64e-10, 64e-20, 64.0}, d2[4] = {64e-14, 64e-10, 64e-20, 0};
	struct kp_outbounds b;
	struct kp_outgroups g;
	kp_outcheck_bounds(KP_DTYPE_F32, 1e-4, 1e-4, &b);
	kp_outcheck_groups(r2, d2, 4, 64, 1.0, &b, &g);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.considered, 3);
	assert_int_equal(g.bad, 1);
	assert_int_equal(g.worst, 1);
	assert_true(fabs(g.worst_rel - 1.0) < 1e-12);
	kp_outcheck_groups(r2, d2, 0, 64, 1.0, &b, &g);
	assert_int_equal(g.considered, 0);
	assert_int_equal(g.worst, -1);
}

static void test_scaled_atol(void **state)
{
	json_t *j = cases(), *c;
	size_t i;
	json_array_foreach(json_object_get(j, "scaled_atol"), i, c) {
		double got = kp_outcheck_scaled_atol(dtype_of(c), kp_json_num(c, "atol", NAN), kp_json_num(c, "ref_rms", NAN));
		if (!(fabs(got - kp_json_num(c, "expect", NAN)) <= 1e-12 * kp_json_num(c, "expect", NAN)))
			fail_msg("%s: got %.17g", kp_json_str(c, "case", "?"), got);
	}
	json_decref(j);
	assert_true(kp_outcheck_scaled_atol(KP_DTYPE_F32, 1e-4, NAN) == 1e-4);
	assert_true(kp_outcheck_scaled_atol(KP_DTYPE_F32, 1e-4, INFINITY) == 1e-4);
}

/* A reproducible uniform [0, 1) stream (xorshift64), for the trials below. */
static double next_u01(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s >> 11) * 0x1p-53;
}

/* The elementwise test of both harnesses: |ref - out| <= atol + rtol * |out|. */
static int element_fails(double ref, double out, double atol, double rtol)
{
	return !(fabs(ref - out) <= atol + rtol * fabs(out) || ref == out);
}

static float sum_pairwise(const float *x, int n)
{
	float s = 0;
	if (n > 8)
		return sum_pairwise(x, n / 2) + sum_pairwise(x + n / 2, n - n / 2);
	for (int i = 0; i < n; i++)
		s += x[i];
	return s;
}

/* A GPU block reduction's order: 256 threads each sum a strided column, then a tree over the threads. */
static float sum_block(const float *x, int n)
{
	float part[256];
	for (int t = 0; t < 256; t++) {
		part[t] = 0;
		for (int k = t; k < n; k += 256)
			part[t] += x[k];
	}
	for (int w = 128; w; w /= 2)
		for (int t = 0; t < w; t++)
			part[t] += part[t + w];
	return part[0];
}

static float sum_sequential(const float *x, int n)
{
	float s = 0;
	for (int i = 0; i < n; i++)
		s += x[i];
	return s;
}

/*
 * The H200's false rejection: row sums of examples/native/row_sum (uniform [-1, 1), 8192 columns) on
 * inputs x64, an honest kernel summing in another order than the reference. With the task's atol the
 * rows that cancel to near zero fail (as on the GPU: 3 of 4096); with the scaled trial's atol both a
 * block reduction (by a wide margin) and a plain sequential sum pass.
 */
static void test_scaled_atol_passes_reordered_sums(void **state)
{
	enum { ROWS = 1024, COLS = 8192 };
	static float x[COLS];
	static double ref[ROWS], block[ROWS], seq[ROWS];
	unsigned long long s = 0x5CA1EDull;
	double sumsq = 0, atol, max_block = 0;
	int old_block = 0, old_seq = 0, new_block = 0, new_seq = 0;

	for (int r = 0; r < ROWS; r++) {
		for (int k = 0; k < COLS; k++)
			x[k] = (float)(next_u01(&s) * 2 - 1) * 64.0f; /* a power of two: exact */
		ref[r] = sum_pairwise(x, COLS);
		block[r] = sum_block(x, COLS);
		seq[r] = sum_sequential(x, COLS);
		sumsq += ref[r] * ref[r];
	}
	atol = kp_outcheck_scaled_atol(KP_DTYPE_F32, 1e-4, sqrt(sumsq / ROWS));
	for (int r = 0; r < ROWS; r++) {
		old_block += element_fails(ref[r], block[r], 1e-4, 1e-4);
		old_seq += element_fails(ref[r], seq[r], 1e-4, 1e-4);
		new_block += element_fails(ref[r], block[r], atol, 1e-4);
		new_seq += element_fails(ref[r], seq[r], atol, 1e-4);
		max_block = fmax(max_block, fabs(ref[r] - block[r]));
	}
	assert_true(old_block > 0 && old_seq > 0); /* the rule before: honest kernels rejected */
	assert_int_equal(new_block, 0);
	assert_int_equal(new_seq, 0);
	assert_true(max_block * 10 < atol); /* the GPU's kind of reduction, with a wide margin */
}

/*
 * What the scaled trial is for: softmax over wide rows (tests/adversarial/tasks/softmax_wide.py), whose
 * outputs are all below atol on the task's inputs, so zeros pass there; on inputs x64 its outputs do
 * not grow with the inputs, the atol stays the task's, and zeros fail while an honest float softmax
 * passes.
 */
static void test_scaled_atol_fails_zero_softmax(void **state)
{
	enum { ROWS = 4, COLS = 262144 };
	static float x[COLS], ref[COLS], honest[COLS];
	unsigned long long s = 0x50F7ull;
	int zeros_at[2] = {0, 0}, honest_bad = 0; /* zeros failing on the task's inputs, on inputs x64 */

	for (int pass = 0, scale = 1; pass < 2; pass++, scale = 64) {
		double sumsq = 0, atol;
		int zeros = 0;
		for (int r = 0; r < ROWS; r++) {
			double mx = 0, sum = 0;
			float fsum = 0;
			for (int k = 0; k < COLS; k++) {
				x[k] = (float)next_u01(&s) * (float)scale;
				mx = fmax(mx, x[k]);
			}
			for (int k = 0; k < COLS; k++)
				sum += exp(x[k] - mx);
			for (int k = 0; k < COLS; k++) {
				ref[k] = (float)(exp(x[k] - mx) / sum);
				honest[k] = expf(x[k] - (float)mx);
				fsum += honest[k];
				sumsq += (double)ref[k] * ref[k];
			}
			for (int k = 0; k < COLS; k++) {
				honest[k] /= fsum;
				zeros += element_fails(ref[k], 0, 1e-4, 1e-4);
				honest_bad += element_fails(ref[k], honest[k], 1e-4, 1e-4);
			}
		}
		atol = kp_outcheck_scaled_atol(KP_DTYPE_F32, 1e-4, sqrt(sumsq / (ROWS * (double)COLS)));
		assert_true(atol == 1e-4);
		zeros_at[pass] = zeros;
	}
	assert_int_equal(zeros_at[0], 0); /* why the trial exists */
	assert_true(zeros_at[1] > 0);
	assert_int_equal(honest_bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_scaled_atol),
		cmocka_unit_test(test_scaled_atol_passes_reordered_sums),
		cmocka_unit_test(test_scaled_atol_fails_zero_softmax),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
