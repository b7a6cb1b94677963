/*
 * Two suites side by side (`kernelpro compare A B`, docs/rejudge.md "Comparing two suites"): per
 * task the paired speedups over eager, the geometric mean of their ratio A/B with a bootstrap
 * confidence interval, and a Wilcoxon signed-rank test of the log ratios, as ablations are reported
 * (tools vs raw metrics, MCTS vs greedy, a re-judged run vs a suite). Plain numbers over struct
 * kp_suite: nothing here reads a database.
 */
#ifndef KERNELPRO_COMPARE_H
#define KERNELPRO_COMPARE_H

#include <jansson.h>
#include <stddef.h>

#include "kernelpro/error.h"
#include "kernelpro/suite.h"

/* ---- The statistics (exposed for their tests) ------------------------------------------------------ */

/* The Wilcoxon signed-rank test of d[0..n) against 0 (two-sided; zeros dropped, as scipy's default). */
struct kp_wilcoxon {
	long n;           /* the differences that are not zero */
	double w_plus;    /* the sum of the ranks of the positive ones */
	double w_minus;   /* of the negative ones */
	double statistic; /* min(w_plus, w_minus) */
	double z;         /* the normal approximation's z (tie-corrected); NAN when exact */
	double p;         /* two-sided p-value; NAN when n == 0 */
	int exact;        /* 1: the exact distribution (n <= 50, no ties); 0: the normal approximation */
};

void kp_wilcoxon(const double *d, size_t n, struct kp_wilcoxon *out);

/*
 * The percentile bootstrap of exp(mean(d)) over `resamples` resamples of d[0..n) with replacement,
 * from a fixed seed (the same interval every time): [lo, hi] at `level` (0.95). NAN when n == 0.
 */
void kp_bootstrap_geomean(const double *d, size_t n, long resamples, double level, unsigned long long seed,
                          double *lo, double *hi);

/* ---- Two suites ------------------------------------------------------------------------------------- */

struct kp_compare_row {
	char *key;   /* "level 1 problem 3" for KernelBench tasks, else the task's name */
	char *name;  /* the task's name (A's) */
	double a, b; /* the speedups over eager counted (a version that failed counts 1.0); NAN: not in that
	              * suite or without an eager baseline there */
	int a_correct, b_correct;
	double ratio; /* a / b; NAN unless both are known */
};

struct kp_compare_opts {
	long resamples;          /* bootstrap resamples; 0: 10000 */
	double level;            /* the interval's level; 0: 0.95 */
	unsigned long long seed; /* 0: 1 */
};

struct kp_compare {
	char *a_name, *b_name;
	struct kp_compare_row *v; /* every key of either suite: A's order, then B's keys A lacks */
	size_t n;
	long paired; /* rows with a ratio */
	long a_faster, b_faster, ties;
	double geomean_ratio; /* exp(mean(log ratio)) over the paired rows; NAN when none */
	double ci_lo, ci_hi, level;
	long resamples;
	struct kp_wilcoxon w; /* over log ratio */
};

void kp_compare_release(struct kp_compare *c);

/*
 * Pairs the two suites' tasks (KernelBench tasks by level and problem id, others by name; several
 * records of one key, the samples of a re-judge, count their best) and computes the figures above.
 * Both suites have been through kp_suite_compute. KP_EINVAL when they share no task.
 */
int kp_compare_suites(const struct kp_suite *a, const struct kp_suite *b, const struct kp_compare_opts *o,
                      struct kp_compare *out, struct kp_error *err);

/* The comparison as JSON (new reference): {"schema": "kernelpro.compare/1", "a", "b", "paired", "only_a",
 * "only_b", "a_faster", "b_faster", "ties", "geomean_ratio", "ci": {"level", "lo", "hi", "resamples"},
 * "wilcoxon": {"n", "w_plus", "w_minus", "statistic", "z", "p", "method"}, "tasks": [{"key", "name",
 * "a", "b", "a_correct", "b_correct", "ratio"}]}. */
json_t *kp_compare_to_json(const struct kp_compare *c);

#endif
