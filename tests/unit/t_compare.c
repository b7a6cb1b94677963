/* Unit tests: the Wilcoxon signed-rank test against scipy's documented example and hand computations
 * (exact and tie-corrected normal), the bootstrap interval, and two suites paired by task. */
#include "base/setup.h"

#include <math.h>

#include "kp_test.h"
#include "kernelpro/compare.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* scipy.stats.wilcoxon's documented example (Fisher's data, the differences of 15 pairs): statistic
 * 24.0, two-sided p 0.041259765625 from the exact distribution (676 of the 2^15 sign patterns). */
static void test_scipy_example(void **state)
{
	const double d[] = {6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75};
	struct kp_wilcoxon w;
	kp_wilcoxon(d, 15, &w);
	assert_int_equal(w.n, 15);
	assert_true(w.exact);
	NEAR(w.w_minus, 24, 0); /* ranks 10 (48) and 14 (67) */
	NEAR(w.w_plus, 96, 0);  /* 120 - 24 */
	NEAR(w.statistic, 24, 0);
	NEAR(w.p, 0.041259765625, 1e-15);
	assert_true(isnan(w.z));
}

/* By hand: five positive differences, W- = 0, P(W <= 0) = 1/32, two-sided 1/16; and a balanced case. */
static void test_exact_by_hand(void **state)
{
	const double all_up[] = {0.1, 0.2, 0.3, 0.4, 0.5}, balanced[] = {1, 2, -3};
	struct kp_wilcoxon w;
	kp_wilcoxon(all_up, 5, &w);
	NEAR(w.statistic, 0, 0);
	NEAR(w.p, 0.0625, 1e-15);
	kp_wilcoxon(balanced, 3, &w); /* W+ = W- = 3; P(W <= 3) = 5/8; two-sided capped at 1 */
	NEAR(w.w_plus, 3, 0);
	NEAR(w.p, 1.0, 0);
}

/* Ties and zeros: the normal approximation with the tie correction, computed by hand: |d| 1 1 2 3 3 3
 * ranks 1.5 1.5 3 5 5 5, W+ = 18, W- = 3, mean 10.5, variance 6*7*13/24 - (2^3-2 + 3^3-3)/48 = 22.125,
 * z = -7.5 / sqrt(22.125), p = erfc(|z| / sqrt 2). The zero is dropped. */
static void test_ties_normal(void **state)
{
	const double d[] = {1, 1, -2, 0, 3, 3, 3};
	struct kp_wilcoxon w;
	kp_wilcoxon(d, 7, &w);
	assert_int_equal(w.n, 6);
	assert_false(w.exact);
	NEAR(w.w_plus, 18, 1e-12);
	NEAR(w.w_minus, 3, 1e-12);
	NEAR(w.z, -1.5944820103582016, 1e-12);
	NEAR(w.p, 0.11082811686279109, 1e-12);
	kp_wilcoxon(d + 3, 1, &w); /* only a zero: no test */
	assert_int_equal(w.n, 0);
	assert_true(isnan(w.p));
}

/* Above 50 pairs: the normal approximation (no ties here), against its formula. */
static void test_large_n_normal(void **state)
{
	double d[60];
	struct kp_wilcoxon w;
	for (int i = 0; i < 60; i++)
		d[i] = (i % 7 == 3 ? -1.0 : 1.0) * (i + 1); /* distinct magnitudes: no ties */
	kp_wilcoxon(d, 60, &w);
	assert_false(w.exact);
	{
		double neg = 0, n = 60, mean = n * (n + 1) / 4, sd = sqrt(n * (n + 1) * (2 * n + 1) / 24);
		for (int i = 0; i < 60; i++)
			if (i % 7 == 3)
				neg += i + 1;
		NEAR(w.statistic, neg, 0);
		NEAR(w.z, (neg - mean) / sd, 1e-12);
		NEAR(w.p, erfc(fabs((neg - mean) / sd) / sqrt(2.0)), 1e-12);
	}
}

static void test_bootstrap(void **state)
{
	const double same[] = {0.5, 0.5, 0.5, 0.5};
	const double d[] = {log(2.0), log(0.5), log(1.5), log(1.2), log(0.9), log(3.0)};
	double lo, hi, lo2, hi2, mean = 0;
	kp_bootstrap_geomean(same, 4, 1000, 0.95, 7, &lo, &hi);
	NEAR(lo, exp(0.5), 1e-12);
	NEAR(hi, exp(0.5), 1e-12);
	for (int i = 0; i < 6; i++)
		mean += d[i] / 6;
	kp_bootstrap_geomean(d, 6, 5000, 0.95, 1, &lo, &hi);
	kp_bootstrap_geomean(d, 6, 5000, 0.95, 1, &lo2, &hi2);
	assert_true(lo == lo2 && hi == hi2); /* one seed, one interval */
	assert_true(lo < exp(mean) && exp(mean) < hi);
	assert_true(lo >= 0.5 && hi <= 3.0); /* a mean of the resampled ratios stays within them */
	kp_bootstrap_geomean(d, 6, 5000, 0.5, 1, &lo2, &hi2);
	assert_true(lo2 > lo && hi2 < hi); /* a lower level, a narrower interval */
	kp_bootstrap_geomean(d, 0, 100, 0.95, 1, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
}

static void add(struct kp_suite *s, int level, int problem, const char *name, double best_ms, double eager_ms)
{
	struct kp_suite_task t;
	kp_suite_task_init(&t);
	t.name = kp_xstrdup(name);
	t.level = level;
	t.problem_id = problem;
	t.state = KP_SUITE_FINISHED;
	t.correct = !isnan(best_ms);
	t.best_ms = best_ms;
	t.base_ms[KP_SUITE_EAGER] = eager_ms;
	kp_suite_add(s, &t);
}

static void test_two_suites(void **state)
{
	struct kp_suite a, b;
	struct kp_compare c;
	struct kp_error err = KP_ERROR_INIT;
	json_t *j;

	kp_suite_init(&a, "tools");
	kp_suite_init(&b, "raw");
	add(&a, 1, 2, "2_Relu", 1.0, 2.0);    /* 2x */
	add(&a, 1, 4, "4_Gelu", NAN, 4.0);    /* no correct version: 1.0 */
	add(&a, 1, 8, "8_Conv", 1.0, 3.0);    /* 3x */
	add(&a, 0, 0, "native", 1.0, 1.0);    /* only in A */
	add(&b, 1, 2, "2_Relu_s0", 2.0, 2.0); /* 1x */
	add(&b, 1, 2, "2_Relu_s1", 4.0, 2.0); /* a second sample, worse: the best counts */
	add(&b, 1, 4, "4_Gelu", 2.0, 4.0);    /* 2x */
	add(&b, 1, 8, "8_Conv", 1.0, 3.0);    /* 3x: a tie */
	add(&b, 1, 9, "9_Only", 1.0, 3.0);    /* only in B */
	KP_ASSERT_OK(kp_suite_compute(&a, &err), &err);
	KP_ASSERT_OK(kp_suite_compute(&b, &err), &err);
	KP_ASSERT_OK(kp_compare_suites(&a, &b, NULL, &c, &err), &err);
	assert_int_equal(c.paired, 3);
	assert_int_equal(c.a_faster, 1);
	assert_int_equal(c.b_faster, 1);
	assert_int_equal(c.ties, 1);
	NEAR(c.geomean_ratio, 1.0, 1e-12); /* (2 * 0.5 * 1)^(1/3) */
	assert_int_equal(c.w.n, 2);        /* the tie is a zero difference, dropped */
	NEAR(c.w.p, 1.0, 0);
	assert_true(c.ci_lo <= 1.0 && c.ci_hi >= 1.0);
	j = kp_compare_to_json(&c);
	assert_int_equal(json_integer_value(json_object_get(j, "only_a")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "only_b")), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(json_object_get(j, "tasks"), 0), "key")),
	    "level 1 problem 2");
	json_decref(j);
	kp_compare_release(&c);

	/* Nothing shared: refused, saying how tasks pair. */
	kp_suite_release(&b);
	kp_suite_init(&b, "other");
	add(&b, 3, 1, "1_Other", 1.0, 1.0);
	KP_ASSERT_OK(kp_suite_compute(&b, &err), &err);
	assert_int_equal(kp_compare_suites(&a, &b, NULL, &c, &err), KP_EINVAL);
	assert_non_null(strstr(err.msg, "share no task"));
	kp_compare_release(&c);
	kp_suite_release(&a);
	kp_suite_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scipy_example), cmocka_unit_test(test_exact_by_hand),
	    cmocka_unit_test(test_ties_normal),   cmocka_unit_test(test_large_n_normal),
	    cmocka_unit_test(test_bootstrap),     cmocka_unit_test(test_two_suites),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
