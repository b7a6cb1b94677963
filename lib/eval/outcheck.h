/* Degenerate-output checks: outputs that pass the elementwise tolerance without being right (zeros or
 * a constant where the reference varies, an error large for the reference's own scale, agreement on
 * only part of the elements). The harnesses measure the statistics on the GPU; this module judges
 * them. The PyTorch adapter has the same logic in Python (harness/kernelpro/outcheck.py); both
 * are held to tests/golden/eval/outcheck-cases.json. C and C++ (the native harness links it). */
#ifndef KP_EVAL_OUTCHECK_H
#define KP_EVAL_OUTCHECK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which check failed; the ids are the check table's (lib/eval/checks.c). */
enum kp_outcheck {
	KP_OUTCHECK_OK = 0,
	KP_OUTCHECK_CONSTANT = 1, /* "constant_output" */
	KP_OUTCHECK_PARTIAL = 2,  /* "partial_match" */
	KP_OUTCHECK_RELATIVE = 3, /* "relative_error" */
};
const char *kp_outcheck_id(enum kp_outcheck c);

/*
 * The bounds for one output, from its dtype (enum kp_dtype / KP_ABI_* numbers) and tolerance:
 *   rel   = max(10 * rtol, 8 * eps, 1e-3): the relative error no honest kernel comes near
 *           (fp32 at the default rtol 1e-4: 1e-3, about 100x what reordered sums and fast-math
 *           reach; fp16/bf16 at 1e-2: 0.1, over 10x a bf16 rounding);
 *   noise = 4 * eps: below noise * max|ref| a value is rounding noise of the output, not signal;
 *   frac  = 0.01: more than 1% of the elements (or of the rows, or channels) wrong fails.
 * kp_outcheck_applies() is 0 for integer dtypes (compared exactly; nothing to add).
 */
struct kp_outbounds {
	double rel, noise, frac;
	double atol, rtol; /* the elementwise tolerance, for the messages */
};
int kp_outcheck_applies(int dtype);
void kp_outcheck_bounds(int dtype, double atol, double rtol, struct kp_outbounds *b);

/*
 * The absolute tolerance of the scaled trial (inputs x64, x4 for fp16) for one output: the task's
 * atol, widened to the rounding error an honest kernel makes at the magnitudes the reference's
 * output reached there,
 *   max(atol, max(128 * acc_eps, 4 * eps) * ref_rms),
 * ref_rms = sqrt(mean(ref^2)) over the scaled trial's reference output (finite elements), eps the
 * output dtype's unit roundoff, acc_eps the accumulation's (fp32's; fp64's for fp64 outputs). A sum
 * that cancels to near zero has an absolute error proportional to its terms, which grow with the
 * inputs while rtol * |out| does not; outputs that do not grow (softmax) keep the task's atol, so
 * zeros and tiny values still fail there. Measured and justified in docs/eval.md (the scaled trial).
 * The task's atol for integer dtypes and a reference RMS that is not a positive finite number.
 */
double kp_outcheck_scaled_atol(int dtype, double atol, double ref_rms);

/* Per-group results (rows: slices over the last dimension; channels: slices over dimension 1). */
struct kp_outgroups {
	long long n;          /* groups; 0: not measured for this shape */
	long long size;       /* elements per group */
	long long considered; /* groups whose reference RMS is above the noise */
	long long bad;        /* of those, groups with ||out - ref|| > rel * ||ref|| */
	long long worst;      /* the bad group with the largest relative error; -1 when none */
	double worst_rel;
};

/* One output over one trial; sums over the elements where both values are finite. */
struct kp_outstats {
	long long n;                  /* elements compared */
	double ref_min, ref_max;      /* the reference's finite range */
	double ref_maxabs, ref_sumsq; /* max |ref|, sum ref^2 */
	double out_min, out_max;      /* the candidate's finite range */
	double diff_sumsq;            /* sum (out - ref)^2 */
	long long nbad;               /* elements with |out - ref| > rel * (|ref| + rms(ref)) */
	long long first_bad;          /* flat index of the first; -1 when none */
	double first_got, first_want;
	struct kp_outgroups rows, chans;
};

/* The group layouts of a shape: rows when the last dimension has >= 32 elements and there are >= 2
 * rows; channels when dimension 1 has >= 2 entries of >= 32 elements each. Zero `n` when absent.
 * inner/nseg describe group(i) = (i / inner) % nseg over the flat index. */
struct kp_outlayout {
	long long inner, nseg, size;
};
void kp_outcheck_layouts(const long long *shape, int ndim, struct kp_outlayout *rows, struct kp_outlayout *chans);

/*
 * Classifies groups from per-group sums of ref^2 and (out - ref)^2: a group counts when its
 * reference RMS is above noise * ref_maxabs, and is bad when sqrt(d2) > rel * sqrt(r2).
 */
void kp_outcheck_groups(const double *r2, const double *d2, long long n, long long size, double ref_maxabs,
			const struct kp_outbounds *b, struct kp_outgroups *g);

/*
 * The verdict on one output whose elements all passed the elementwise tolerance: the first check
 * that fails, in the order constant_output, partial_match, relative_error (whole output, rows,
 * channels), with a message for the LLM in `msg` naming the output (`name`), what is wrong and why
 * it passed the tolerance; KP_OUTCHECK_OK and an empty message when none fails. `coords` is the
 * first bad element's position as text ("3, 17"), or NULL. `skip` has bit (1 << c) set for each
 * check c switched off (--allow).
 */
enum kp_outcheck kp_outcheck_judge(const struct kp_outstats *s, const struct kp_outbounds *b, unsigned skip,
				   const char *name, const char *coords, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif
