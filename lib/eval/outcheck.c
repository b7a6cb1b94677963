/* Degenerate-output checks: the bounds, the group layouts and classification, and the judgement on
 * one output's statistics (outcheck.h; the Python twin is harness/kernelpro/outcheck.py). */
#include "base/setup.h"

#include <math.h>

#include "eval/outcheck.h"

/* Element types, as enum kp_dtype (kernelpro/task.h) and KP_ABI_* (kp_native.h). */
enum { DT_F32 = 0, DT_F16 = 1, DT_BF16 = 2, DT_F64 = 3 };

#define MIN_GROUP 32 /* a group smaller than this has no scale of its own worth judging */
/* The scaled trial's widening of atol, in units of rms(ref): reordered fp32 accumulation (tree
 * reductions reach 4-10 units, a sequential sum of 8192 terms 82), a few roundings of intermediates
 * in the output's precision. */
#define SCALED_ACC_UNITS 128
#define SCALED_OUT_UNITS 4

const char *kp_outcheck_id(enum kp_outcheck c)
{
	switch (c) {
	case KP_OUTCHECK_CONSTANT: return "constant_output";
	case KP_OUTCHECK_PARTIAL: return "partial_match";
	case KP_OUTCHECK_RELATIVE: return "relative_error";
	default: return "";
	}
}

int kp_outcheck_applies(int dtype)
{
	return dtype == DT_F32 || dtype == DT_F16 || dtype == DT_BF16 || dtype == DT_F64;
}

static double eps_of(int dtype)
{
	switch (dtype) {
	case DT_F16: return 0x1p-10;
	case DT_BF16: return 0x1p-7;
	case DT_F64: return 0x1p-52;
	default: return 0x1p-23;
	}
}

void kp_outcheck_bounds(int dtype, double atol, double rtol, struct kp_outbounds *b)
{
	double eps = eps_of(dtype);
	b->rel = fmax(fmax(10 * (isnan(rtol) ? 0 : rtol), 8 * eps), 1e-3);
	b->noise = 4 * eps;
	b->frac = 0.01;
	b->atol = atol;
	b->rtol = rtol;
}

double kp_outcheck_scaled_atol(int dtype, double atol, double ref_rms)
{
	double acc = dtype == DT_F64 ? 0x1p-52 : 0x1p-23;
	if (!kp_outcheck_applies(dtype) || !isfinite(ref_rms) || ref_rms <= 0)
		return atol;
	return fmax(atol, fmax(SCALED_ACC_UNITS * acc, SCALED_OUT_UNITS * eps_of(dtype)) * ref_rms);
}

void kp_outcheck_layouts(const long long *shape, int ndim, struct kp_outlayout *rows, struct kp_outlayout *chans)
{
	long long numel = 1;
	memset(rows, 0, sizeof(*rows));
	memset(chans, 0, sizeof(*chans));
	for (int d = 0; d < ndim; d++)
		numel *= shape[d];
	if (ndim < 2 || numel <= 0)
		return;
	if (shape[ndim - 1] >= MIN_GROUP && numel / shape[ndim - 1] >= 2)
		*rows = (struct kp_outlayout){shape[ndim - 1], numel / shape[ndim - 1], shape[ndim - 1]};
	if (shape[1] >= 2 && numel / shape[1] >= MIN_GROUP) {
		long long inner = 1;
		for (int d = 2; d < ndim; d++)
			inner *= shape[d];
		*chans = (struct kp_outlayout){inner, shape[1], numel / shape[1]};
	}
}

void kp_outcheck_groups(const double *r2, const double *d2, long long n, long long size, double ref_maxabs,
			const struct kp_outbounds *b, struct kp_outgroups *g)
{
	double floor_rms = b->noise * ref_maxabs;
	memset(g, 0, sizeof(*g));
	g->n = n;
	g->size = size;
	g->worst = -1;
	for (long long i = 0; i < n; i++) {
		double rms = size > 0 ? sqrt(r2[i] / (double)size) : 0;
		double rel;
		if (!(rms > floor_rms))
			continue;
		g->considered++;
		rel = sqrt(d2[i]) / sqrt(r2[i]);
		if (!(rel > b->rel))
			continue;
		g->bad++;
		if (g->worst < 0 || rel > g->worst_rel) {
			g->worst = i;
			g->worst_rel = rel;
		}
	}
}

/* More than frac of `of`, and at least one. */
static int too_many(long long bad, long long of, double frac)
{
	return bad > 0 && (double)bad > frac * (double)of;
}

static int group_fails(const struct kp_outgroups *g, const struct kp_outbounds *b)
{
	return g->n > 0 && too_many(g->bad, g->considered, b->frac);
}

static void group_message(const struct kp_outgroups *g, const struct kp_outbounds *b, const char *name,
			  const char *what, char *msg, size_t n)
{
	snprintf(msg, n,
		 "output '%s': %lld of %lld %ss (%lld elements each) have ||out - ref|| / ||ref|| above %g (worst: %s "
		 "%lld, %.3g) though every element is within atol=%g: %ss whose values are small next to the rest are "
		 "wrong; compute them as carefully as the large ones",
		 name, g->bad, g->considered, what, g->size, b->rel, what, g->worst, g->worst_rel, b->atol, what);
}

enum kp_outcheck kp_outcheck_judge(const struct kp_outstats *s, const struct kp_outbounds *b, unsigned skip,
				   const char *name, const char *coords, char *msg, size_t msg_size)
{
	double ref_rms = s->n > 0 ? sqrt(s->ref_sumsq / (double)s->n) : 0;
	double rel = s->ref_sumsq > 0 ? sqrt(s->diff_sumsq / s->ref_sumsq) : 0;

	if (msg_size)
		msg[0] = '\0';
	if (s->n <= 0)
		return KP_OUTCHECK_OK;
	if (!(skip & (1u << KP_OUTCHECK_CONSTANT)) && s->n >= 2 && s->out_min == s->out_max &&
	    s->ref_max - s->ref_min > b->rel * s->ref_maxabs) {
		snprintf(msg, msg_size,
			 "output '%s' is constant (every element %.6g) where the reference's varies from %.6g to %.6g: "
			 "it is within atol=%g only because the reference's values are that small; compute each "
			 "element (an all-zero output usually means the kernel never ran or wrote elsewhere)",
			 name, s->out_min, s->ref_min, s->ref_max, b->atol);
		return KP_OUTCHECK_CONSTANT;
	}
	if (!(skip & (1u << KP_OUTCHECK_PARTIAL)) && too_many(s->nbad, s->n, b->frac)) {
		snprintf(msg, msg_size,
			 "output '%s': %lld of %lld elements (%.3g%%) differ from the reference by more than %g of its "
			 "scale (|out - ref| > %g * (|ref| + rms(ref)), rms(ref) = %.3g), though each is within atol=%g; "
			 "first at [%s]: got %.9g, expected %.9g. The output is right only on part of its elements: "
			 "compute every element",
			 name, s->nbad, s->n, 100.0 * (double)s->nbad / (double)s->n, b->rel, b->rel, ref_rms, b->atol,
			 coords ? coords : "?", s->first_got, s->first_want);
		return KP_OUTCHECK_PARTIAL;
	}
	if (skip & (1u << KP_OUTCHECK_RELATIVE))
		return KP_OUTCHECK_OK;
	if (rel > b->rel) {
		snprintf(msg, msg_size,
			 "output '%s': ||out - ref|| / ||ref|| = %.3g, above %g: the error is large for the reference's "
			 "own scale (rms(ref) = %.3g) though every element is within atol=%g; the values are wrong, "
			 "only small",
			 name, rel, b->rel, ref_rms, b->atol);
		return KP_OUTCHECK_RELATIVE;
	}
	if (group_fails(&s->rows, b)) {
		group_message(&s->rows, b, name, "row", msg, msg_size);
		return KP_OUTCHECK_RELATIVE;
	}
	if (group_fails(&s->chans, b)) {
		group_message(&s->chans, b, name, "channel", msg, msg_size);
		return KP_OUTCHECK_RELATIVE;
	}
	return KP_OUTCHECK_OK;
}
