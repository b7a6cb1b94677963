/* Calibration of the energy proxy: NNLS fit on measured kernels, scores, and leave-one-out validation. */
#include "base/setup.h"

#include <math.h>
#include <time.h>

#include "energy/nnls.h"
#include "kernelpro/energy.h"
#include "kernelpro/str.h"

/* Scores proxy breakdowns (one per sample) against the samples' measurements. */
static void score_breakdowns(const struct kp_energy_sample *s, size_t n, const struct kp_energy_breakdown *b,
			     double idle_default, struct kp_energy_score *out)
{
	size_t sz = n ? n : 1, nd = 0, np = 0;
	double *pe = kp_xcalloc(sz, sizeof(double)), *me = kp_xcalloc(sz, sizeof(double));
	double *pd = kp_xcalloc(sz, sizeof(double)), *md = kp_xcalloc(sz, sizeof(double));
	double *pp = kp_xcalloc(sz, sizeof(double)), *mp = kp_xcalloc(sz, sizeof(double));

	for (size_t i = 0; i < n; i++) {
		double idle = isfinite(s[i].idle_power_w) ? s[i].idle_power_w : idle_default;
		pe[i] = b[i].total_j;
		me[i] = s[i].energy_j;
		if (isfinite(s[i].dynamic_j) && isfinite(b[i].time_s)) {
			pd[nd] = b[i].total_j - idle * b[i].time_s;
			md[nd++] = s[i].dynamic_j;
		}
		if (isfinite(b[i].time_s) && b[i].time_s > 0 && s[i].time_s > 0) {
			pp[np] = b[i].total_j / b[i].time_s;
			mp[np++] = s[i].energy_j / s[i].time_s;
		}
	}
	out->spearman = kp_energy_spearman(pe, me, n);
	out->mape = kp_energy_mape(pe, me, n);
	out->dynamic_spearman = kp_energy_spearman(pd, md, nd);
	out->power_spearman = kp_energy_spearman(pp, mp, np);
	free(pe);
	free(me);
	free(pd);
	free(md);
	free(pp);
	free(mp);
}

void kp_energy_score(const struct kp_energy_sample *s, size_t n, const struct kp_energy_coeffs *c,
		     struct kp_energy_score *out)
{
	struct kp_energy_breakdown *b = kp_xcalloc(n ? n : 1, sizeof(*b));
	for (size_t i = 0; i < n; i++)
		kp_energy_proxy(&s[i].counts, c, &b[i]);
	score_breakdowns(s, n, b, c->idle_power_w, out);
	free(b);
}

/* A term is fitted when some sample has a positive count of it. */
static int active_terms(const struct kp_energy_sample *s, size_t n, const size_t *skip, int *active)
{
	int k = 0;
	for (int t = 0; t < KP_ENERGY_NTERMS; t++) {
		active[t] = 0;
		for (size_t i = 0; i < n; i++)
			if ((!skip || i != *skip) && isfinite(s[i].counts.v[t]) && s[i].counts.v[t] > 0)
				active[t] = 1;
		k += active[t];
	}
	return k;
}

/* One NNLS fit on all samples except *skip (NULL: none). */
static int fit_once(const struct kp_energy_sample *s, size_t n, const size_t *skip, const struct kp_energy_coeffs *base,
		    double prior, struct kp_energy_coeffs *out, int *nfitted, struct kp_error *err)
{
	int active[KP_ENERGY_NTERMS], map[KP_ENERGY_NTERMS];
	int k = active_terms(s, n, skip, active);
	size_t rows = 0, m = (skip ? n - 1 : n) + (prior > 0 ? (size_t)k : 0), r = 0;
	double *A = NULL, *b = NULL, *x = NULL, scale[KP_ENERGY_NTERMS];
	int rc = 0, j = 0;

	*out = *base;
	for (int t = 0; t < KP_ENERGY_NTERMS; t++) {
		out->fitted[t] = 0;
		map[t] = active[t] ? j++ : -1;
	}
	if (k == 0)
		return kp_error_set(err, KP_EINVAL, "energy calibrate: no sample has any counts");
	A = kp_xcalloc(kp_st_mult(m, (size_t)k), sizeof(double));
	b = kp_xcalloc(m, sizeof(double));
	x = kp_xcalloc((size_t)k, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		if (skip && i == *skip)
			continue;
		for (int t = 0; t < KP_ENERGY_NTERMS; t++)
			if (map[t] >= 0 && isfinite(s[i].counts.v[t]) && s[i].counts.v[t] > 0)
				A[r * (size_t)k + (size_t)map[t]] = s[i].counts.v[t] / s[i].energy_j;
		b[r++] = 1.0;
	}
	rows = r;
	/* Columns differ by 20 orders of magnitude (seconds vs bytes): scale each to unit norm. */
	for (int t = 0; t < KP_ENERGY_NTERMS; t++) {
		double ss = 0;
		if (map[t] < 0)
			continue;
		for (size_t i = 0; i < rows; i++)
			ss += A[i * (size_t)k + (size_t)map[t]] * A[i * (size_t)k + (size_t)map[t]];
		scale[t] = ss > 0 ? sqrt(ss) : 1;
		for (size_t i = 0; i < rows; i++)
			A[i * (size_t)k + (size_t)map[t]] /= scale[t];
	}
	/* The prior: rows sqrt(prior) * c_t / base_t = sqrt(prior), in the scaled variable c_t * scale_t. */
	if (prior > 0)
		for (int t = 0; t < KP_ENERGY_NTERMS; t++) {
			if (map[t] < 0)
				continue;
			if (base->c[t] > 0)
				A[r * (size_t)k + (size_t)map[t]] = sqrt(prior) / (base->c[t] * scale[t]);
			b[r] = base->c[t] > 0 ? sqrt(prior) : 0;
			r++;
		}
	rc = kp_nnls(A, r, (size_t)k, b, x, NULL, err);
	if (rc)
		goto out;
	for (int t = 0; t < KP_ENERGY_NTERMS; t++) {
		if (map[t] < 0)
			continue;
		out->c[t] = x[map[t]] / scale[t];
		out->fitted[t] = 1;
	}
	if (nfitted)
		*nfitted = k;
out:
	free(A);
	free(b);
	free(x);
	return rc;
}

int kp_energy_calibrate(const struct kp_energy_sample *s, size_t n, const struct kp_energy_coeffs *base,
			double prior, struct kp_energy_coeffs *out, struct kp_energy_fit *fit, struct kp_error *err)
{
	struct kp_energy_breakdown *loo;
	double idle[1024];
	size_t nidle = 0;
	int rc;

	memset(fit, 0, sizeof(*fit));
	if (n < 3)
		return kp_error_set(err, KP_EINVAL, "energy calibrate: needs at least 3 measured kernels, got %zu", n);
	if (!(prior >= 0) || !isfinite(prior))
		return kp_error_set(err, KP_EINVAL, "energy calibrate: the prior weight must be >= 0");
	for (size_t i = 0; i < n; i++)
		if (!(s[i].energy_j > 0) || !isfinite(s[i].energy_j))
			return kp_error_set(err, KP_EINVAL, "energy calibrate: sample '%s' has no positive measured energy",
					    s[i].name);
	if ((rc = fit_once(s, n, NULL, base, prior, out, &fit->nfitted, err)))
		return rc;
	fit->nsamples = n;
	kp_energy_score(s, n, out, &fit->fitted);
	kp_energy_score(s, n, base, &fit->base);

	/* Leave-one-out: each sample predicted by coefficients fitted without it. */
	loo = kp_xcalloc(n, sizeof(*loo));
	for (size_t i = 0; i < n; i++) {
		struct kp_energy_coeffs c;
		if ((rc = fit_once(s, n, &i, base, prior, &c, NULL, err))) {
			free(loo);
			return rc;
		}
		kp_energy_proxy(&s[i].counts, &c, &loo[i]);
	}
	score_breakdowns(s, n, loo, base->idle_power_w, &fit->loo);
	free(loo);

	for (size_t i = 0; i < n && nidle < KP_ARRAY_SIZE(idle); i++)
		if (isfinite(s[i].idle_power_w) && s[i].idle_power_w > 0)
			idle[nidle++] = s[i].idle_power_w;
	if (nidle)
		out->idle_power_w = kp_energy_median(idle, nidle);
	out->device[0] = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i].device[0]) {
			kp_strlcpy(out->device, s[i].device, sizeof(out->device));
			break;
		}
	{
		time_t now = time(NULL);
		struct tm tm;
		char day[32] = "";
		if (gmtime_r(&now, &tm))
			strftime(day, sizeof(day), "%Y-%m-%d", &tm);
		snprintf(out->source, sizeof(out->source), "calibrated %s on %zu kernels%s%s (%d terms fitted)", day, n,
			 out->device[0] ? " of " : "", out->device, fit->nfitted);
	}
	return 0;
}
