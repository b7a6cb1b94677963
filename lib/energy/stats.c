/* Small statistics for energy figures: median, Spearman rank correlation, MAPE, noise-aware comparison. */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/energy.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double kp_energy_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	return (x->i > y->i) - (x->i < y->i);
}

/* Ranks 1..n with ties sharing their average rank. */
static void ranks(const double *v, size_t n, double *r)
{
	struct ranked *t = kp_xcalloc(n, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		t[i].v = v[i];
		t[i].i = i;
	}
	qsort(t, n, sizeof(*t), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && t[j + 1].v == t[i].v)
			j++;
		for (size_t k = i; k <= j; k++)
			r[t[k].i] = 0.5 * (double)(i + j) + 1;
		i = j + 1;
	}
	free(t);
}

double kp_energy_spearman(const double *a, const double *b, size_t n)
{
	double *ra, *rb, ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0, rho;
	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(a[i]) || !isfinite(b[i]))
			return NAN;
	ra = kp_xcalloc(n, sizeof(double));
	rb = kp_xcalloc(n, sizeof(double));
	ranks(a, n, ra);
	ranks(b, n, rb);
	for (size_t i = 0; i < n; i++) {
		ma += ra[i];
		mb += rb[i];
	}
	ma /= (double)n;
	mb /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sab += (ra[i] - ma) * (rb[i] - mb);
		saa += (ra[i] - ma) * (ra[i] - ma);
		sbb += (rb[i] - mb) * (rb[i] - mb);
	}
	rho = (saa == 0 || sbb == 0) ? NAN : sab / sqrt(saa * sbb);
	free(ra);
	free(rb);
	return rho;
}

double kp_energy_mape(const double *pred, const double *meas, size_t n)
{
	double sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(meas[i] > 0) || !isfinite(pred[i]))
			continue;
		sum += fabs(pred[i] - meas[i]) / meas[i];
		k++;
	}
	return k ? sum / (double)k : NAN;
}

int kp_energy_cmp(double a_j, double a_spread, double b_j, double b_spread, double floor_rel)
{
	double band = floor_rel, ref;
	if (!isfinite(a_j) || !isfinite(b_j))
		return 0;
	if (isfinite(a_spread) && a_spread / 2 > band)
		band = a_spread / 2;
	if (isfinite(b_spread) && b_spread / 2 > band)
		band = b_spread / 2;
	ref = fmax(fabs(a_j), fabs(b_j));
	if (ref == 0 || fabs(a_j - b_j) <= band * ref)
		return 0;
	return a_j < b_j ? -1 : 1;
}
