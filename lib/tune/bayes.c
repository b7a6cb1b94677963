/*
 * The model behind the bayes strategy: a Gaussian process on the knobs' value indices scaled to [0, 1]
 * (values are sorted, so neighbouring indices are neighbouring sizes), Matern 5/2 kernel with one
 * length per knob, fitted to standardised log times by maximum marginal likelihood over a small grid,
 * and expected improvement to choose the next points. Failed variants count as the slowest time seen,
 * which steers the search away from them without a second model. Plain C, no library.
 */
#include "base/setup.h"

#include <math.h>

#include "tune/tune_int.h"

static const double lengths[] = {0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.2, 2.0};
static const double scales[] = {0.25, 0.5, 2.0, 4.0, 1000.0}; /* per-knob refinements of the length */
static const double noises[] = {1e-4, 1e-2, 1e-1};
#define XI     0.01 /* the improvement that counts, in standard deviations of the log times */
#define GP_MAX 256  /* observations the model keeps: the fastest (its cost grows with their cube) */

struct gp {
	size_t n, d;
	double *x;     /* n x d features */
	double *y;     /* n standardised targets */
	double *L;     /* n x n Cholesky factor, lower */
	double *alpha; /* K^-1 y */
	double inv_len[KP_TUNE_MAX_KNOBS];
	double noise;
};

static void features(const struct kp_tune_space *s, const struct kp_tune_point *p, double *x)
{
	for (size_t k = 0; k < s->nknobs; k++)
		x[k] = s->knobs[k].nvalues > 1 ? (double)p->v[k] / (double)(s->knobs[k].nvalues - 1) : 0.0;
}

static double matern(const double *a, const double *b, size_t d, const double *inv_len)
{
	double r2 = 0, r;
	for (size_t k = 0; k < d; k++) {
		double t = (a[k] - b[k]) * inv_len[k];
		r2 += t * t;
	}
	r = sqrt(5.0 * r2);
	return (1.0 + r + 5.0 * r2 / 3.0) * exp(-r);
}

/* Factors K + noise I into g->L; returns the log marginal likelihood, or -INFINITY when not positive
 * definite. */
static double factor(struct gp *g)
{
	size_t n = g->n, d = g->d;
	double *L = g->L, lml = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j <= i; j++)
			L[i * n + j] =
			    matern(g->x + i * d, g->x + j * d, d, g->inv_len) + (i == j ? g->noise : 0.0);
	for (size_t j = 0; j < n; j++) {
		double s = L[j * n + j];
		for (size_t k = 0; k < j; k++)
			s -= L[j * n + k] * L[j * n + k];
		if (s <= 1e-12)
			return -INFINITY;
		L[j * n + j] = sqrt(s);
		for (size_t i = j + 1; i < n; i++) {
			double t = L[i * n + j];
			for (size_t k = 0; k < j; k++)
				t -= L[i * n + k] * L[j * n + k];
			L[i * n + j] = t / L[j * n + j];
		}
	}
	/* alpha = L^T \ (L \ y) */
	for (size_t i = 0; i < n; i++) {
		double t = g->y[i];
		for (size_t k = 0; k < i; k++)
			t -= L[i * n + k] * g->alpha[k];
		g->alpha[i] = t / L[i * n + i];
	}
	for (size_t i = 0; i < n; i++)
		lml -= 0.5 * g->alpha[i] * g->alpha[i] + log(L[i * n + i]);
	for (size_t i = n; i-- > 0;) {
		double t = g->alpha[i];
		for (size_t k = i + 1; k < n; k++)
			t -= L[k * n + i] * g->alpha[k];
		g->alpha[i] = t / L[i * n + i];
	}
	return lml;
}

/* Maximum marginal likelihood: one length for all knobs, then each knob's own, then the noise. */
static void fit(struct gp *g)
{
	double best = -INFINITY, len = 0.5, noise = 1e-2, inv[KP_TUNE_MAX_KNOBS];
	size_t d = g->d;
	double root_d = sqrt((double)(d ? d : 1));

	for (size_t li = 0; li < KP_ARRAY_SIZE(lengths); li++)
		for (size_t ni = 0; ni < KP_ARRAY_SIZE(noises); ni++) {
			double lml;
			for (size_t k = 0; k < d; k++)
				g->inv_len[k] = 1.0 / (lengths[li] * root_d);
			g->noise = noises[ni];
			lml = factor(g);
			if (lml > best) {
				best = lml;
				len = lengths[li] * root_d;
				noise = noises[ni];
			}
		}
	for (size_t k = 0; k < d; k++)
		inv[k] = 1.0 / len;
	g->noise = noise;
	for (size_t k = 0; k < d; k++) {
		double keep = inv[k];
		for (size_t si = 0; si < KP_ARRAY_SIZE(scales); si++) {
			double lml;
			memcpy(g->inv_len, inv, sizeof(inv[0]) * d);
			g->inv_len[k] = 1.0 / (len * scales[si]);
			lml = factor(g);
			if (lml > best + 1e-9) {
				best = lml;
				keep = g->inv_len[k];
			}
		}
		inv[k] = keep;
	}
	memcpy(g->inv_len, inv, sizeof(inv[0]) * d);
	factor(g);
}

static void predict(const struct gp *g, const double *x, double *kstar, double *v, double *mu, double *sigma)
{
	size_t n = g->n;
	double m = 0, var = 1.0;
	for (size_t i = 0; i < n; i++) {
		kstar[i] = matern(x, g->x + i * g->d, g->d, g->inv_len);
		m += kstar[i] * g->alpha[i];
	}
	for (size_t i = 0; i < n; i++) {
		double t = kstar[i];
		for (size_t k = 0; k < i; k++)
			t -= g->L[i * n + k] * v[k];
		v[i] = t / g->L[i * n + i];
		var -= v[i] * v[i];
	}
	*mu = m;
	*sigma = sqrt(var > 1e-12 ? var : 1e-12);
}

static double expected_improvement(double best, double mu, double sigma)
{
	double imp = best - mu - XI, z = imp / sigma;
	double cdf = 0.5 * erfc(-z / M_SQRT2), pdf = exp(-0.5 * z * z) / sqrt(2 * M_PI);
	return imp * cdf + sigma * pdf;
}

/* Fastest first, failures last; ties by point, so the order never depends on qsort's. */
static int by_speed(const void *pa, const void *pb)
{
	const struct tune_obs *a = pa, *b = pb;
	if (a->ok != b->ok)
		return a->ok ? -1 : 1;
	if (a->ok && a->y != b->y)
		return a->y < b->y ? -1 : 1;
	return memcmp(&a->p, &b->p, sizeof(a->p));
}

/* Over 80 lines: one numerical procedure (standardise the observations, fit the GP, pick by expected
 * improvement with the kriging believer) over arrays that live exactly as long as it does. */
size_t kp__tune_bayes_pick(const struct kp_tune_space *s, const struct tune_obs *all, size_t nall,
                           const uint64_t *cands, size_t ncands, size_t want, uint64_t *out)
{
	struct gp g = {0};
	double worst = -INFINITY, mean = 0, sd = 0, best = INFINITY, *kstar, *v, *cx;
	size_t nok = 0, picked = 0, nobs = nall < GP_MAX ? nall : GP_MAX, cap = nobs + want, d = s->nknobs;
	struct tune_obs *obs = kp_xcalloc(nall ? nall : 1, sizeof(*obs));
	uint8_t *taken;

	/* all of them in the order they came, or the GP_MAX fastest */
	memcpy(obs, all, nall * sizeof(*obs));
	if (nall > GP_MAX)
		qsort(obs, nall, sizeof(*obs), by_speed);
	for (size_t i = 0; i < nobs; i++)
		if (obs[i].ok) {
			nok++;
			if (obs[i].y > worst)
				worst = obs[i].y;
		}
	if (nok < 2 || ncands == 0 || want == 0) {
		free(obs);
		return 0;
	}
	g.d = d;
	g.x = kp_xcalloc(kp_st_mult(cap, d ? d : 1), sizeof(double));
	g.y = kp_xcalloc(cap, sizeof(double));
	g.L = kp_xcalloc(kp_st_mult(cap, cap), sizeof(double));
	g.alpha = kp_xcalloc(cap, sizeof(double));
	kstar = kp_xcalloc(cap, sizeof(double));
	v = kp_xcalloc(cap, sizeof(double));
	cx = kp_xcalloc(d ? d : 1, sizeof(double));
	taken = kp_xcalloc(ncands, 1);

	for (size_t i = 0; i < nobs; i++) {
		features(s, &obs[i].p, g.x + i * d);
		g.y[i] = obs[i].ok ? obs[i].y : worst;
		mean += g.y[i];
	}
	g.n = nobs;
	mean /= (double)nobs;
	for (size_t i = 0; i < nobs; i++)
		sd += (g.y[i] - mean) * (g.y[i] - mean);
	sd = sqrt(sd / (double)nobs);
	if (sd < 1e-12)
		sd = 1;
	for (size_t i = 0; i < nobs; i++) {
		g.y[i] = (g.y[i] - mean) / sd;
		if (obs[i].ok && g.y[i] < best)
			best = g.y[i];
	}
	fit(&g);

	while (picked < want) {
		double top = -1, top_mu = 0;
		size_t at = ncands;
		for (size_t c = 0; c < ncands; c++) {
			struct kp_tune_point p;
			double mu, sigma, ei;
			if (taken[c])
				continue;
			kp__tune_point_decode(s, cands[c], &p);
			features(s, &p, cx);
			predict(&g, cx, kstar, v, &mu, &sigma);
			ei = expected_improvement(best, mu, sigma);
			if (ei > top) {
				top = ei;
				top_mu = mu;
				at = c;
			}
		}
		if (at == ncands)
			break;
		taken[at] = 1;
		out[picked++] = cands[at];
		if (picked < want) {
			/* kriging believer: pretend the pick came out as predicted, so the next one goes
			 * elsewhere */
			struct kp_tune_point p;
			kp__tune_point_decode(s, cands[at], &p);
			features(s, &p, g.x + g.n * d);
			g.y[g.n++] = top_mu;
			factor(&g);
		}
	}
	free(taken);
	free(cx);
	free(v);
	free(kstar);
	free(g.alpha);
	free(g.L);
	free(g.y);
	free(g.x);
	free(obs);
	return picked;
}
