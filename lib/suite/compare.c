/*
 * Two suites' paired speedups: the geometric mean of their ratio with a percentile-bootstrap
 * interval, and the Wilcoxon signed-rank test of the log ratios (include/kernelpro/compare.h).
 */
#include "base/setup.h"

#include <math.h>

#include "kernelpro/compare.h"
#include "kernelpro/json.h"
#include "kernelpro/str.h"

#define EXACT_MAX \
	50 /* the exact null distribution up to here: 2^50 subsets still count exactly in a double */

/* ---- Wilcoxon ------------------------------------------------------------------------------------------ */

struct absd {
	double v;
	int sign;
};

static int absd_cmp(const void *pa, const void *pb)
{
	const struct absd *a = pa, *b = pb;
	return a->v < b->v ? -1 : a->v > b->v;
}

static int same(double x, double y)
{
	return fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y));
}

/* P(W+ <= t) under the null for ranks 1..n with no ties: subsets of {1..n} with sum <= t over 2^n. */
static double exact_cdf(long n, double t)
{
	long max = n * (n + 1) / 2;
	double *c = kp_xcalloc((size_t)max + 1, sizeof(double)), total = 0, below = 0;
	c[0] = 1;
	for (long k = 1; k <= n; k++)
		for (long s = k * (k + 1) / 2; s >= k; s--)
			c[s] += c[s - k];
	for (long s = 0; s <= max; s++) {
		total += c[s];
		if ((double)s <= t + 1e-9)
			below += c[s];
	}
	free(c);
	return below / total;
}

void kp_wilcoxon(const double *d, size_t n, struct kp_wilcoxon *out)
{
	struct absd *a = kp_xcalloc(n ? n : 1, sizeof(*a));
	double tie_term = 0;
	size_t m = 0;
	int ties = 0;

	memset(out, 0, sizeof(*out));
	out->z = out->p = NAN;
	for (size_t i = 0; i < n; i++)
		if (!isnan(d[i]) && fabs(d[i]) > 1e-12) /* zeros dropped */
			a[m++] = (struct absd){fabs(d[i]), d[i] > 0 ? 1 : -1};
	out->n = (long)m;
	qsort(a, m, sizeof(*a), absd_cmp);
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j + 1 < m && same(a[j + 1].v, a[i].v))
			j++;
		double rank = (double)(i + j + 2) / 2.0,
		       t = (double)(j - i + 1); /* average of ranks i+1..j+1 */
		if (t > 1) {
			ties = 1;
			tie_term += t * t * t - t;
		}
		for (size_t k = i; k <= j; k++) {
			if (a[k].sign > 0)
				out->w_plus += rank;
			else
				out->w_minus += rank;
		}
		i = j + 1;
	}
	free(a);
	out->statistic = fmin(out->w_plus, out->w_minus);
	if (!m)
		return;
	if (m <= EXACT_MAX && !ties) {
		out->exact = 1;
		out->p = fmin(1.0, 2.0 * exact_cdf((long)m, out->statistic));
		return;
	}
	double nn = (double)m, mean = nn * (nn + 1) / 4;
	double var = nn * (nn + 1) * (2 * nn + 1) / 24 - tie_term / 48;
	out->z = var > 0 ? (out->statistic - mean) / sqrt(var) : 0;
	out->p = var > 0 ? fmin(1.0, erfc(fabs(out->z) / sqrt(2.0))) : 1.0;
}

/* ---- the bootstrap ----------------------------------------------------------------------------------- */

static unsigned long long splitmix(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static int dbl_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return a < b ? -1 : a > b;
}

/* The q-quantile of sorted x[0..n) by linear interpolation (R's type 7, numpy's default). */
static double quantile(const double *x, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	return lo + 1 < n ? x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]) : x[n - 1];
}

void kp_bootstrap_geomean(const double *d, size_t n, long resamples, double level, unsigned long long seed,
                          double *lo, double *hi)
{
	double *means;
	*lo = *hi = NAN;
	if (!n || resamples < 1)
		return;
	means = kp_xcalloc((size_t)resamples, sizeof(double));
	for (long r = 0; r < resamples; r++) {
		double sum = 0;
		for (size_t i = 0; i < n; i++)
			sum += d[splitmix(&seed) % n];
		means[r] = sum / (double)n;
	}
	qsort(means, (size_t)resamples, sizeof(double), dbl_cmp);
	*lo = exp(quantile(means, (size_t)resamples, (1 - level) / 2));
	*hi = exp(quantile(means, (size_t)resamples, 1 - (1 - level) / 2));
	free(means);
}

/* ---- pairing ------------------------------------------------------------------------------------------- */

static void key_of(const struct kp_suite_task *t, struct kp_buf *k)
{
	if (t->level > 0 && t->problem_id > 0)
		kp_buf_addf(k, "level %d problem %d", t->level, t->problem_id);
	else
		kp_buf_adds(k, t->name);
}

/* The speedup a task counts: over eager when correct, 1.0 when it has none, NAN without a baseline. */
static double counted(const struct kp_suite_task *t)
{
	if (isnan(t->base_ms[KP_SUITE_EAGER]))
		return NAN;
	return t->correct && !isnan(t->speedup[KP_SUITE_EAGER]) ? t->speedup[KP_SUITE_EAGER] : 1.0;
}

static struct kp_compare_row *row_for(struct kp_compare *c, const char *key, const char *name, size_t *alloc)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].key, key))
			return &c->v[i];
	KP_ALLOC_GROW(c->v, c->n + 1, *alloc);
	struct kp_compare_row *r = &c->v[c->n++];
	memset(r, 0, sizeof(*r));
	r->key = kp_xstrdup(key);
	r->name = kp_xstrdup(name);
	r->a = r->b = r->ratio = NAN;
	return r;
}

/* Several records of one key: the best one counts. */
static void take(double *dst, int *ok, const struct kp_suite_task *t)
{
	double v = counted(t);
	if (!isnan(v) && (isnan(*dst) || v > *dst)) {
		*dst = v;
		*ok = t->correct;
	}
}

void kp_compare_release(struct kp_compare *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].key);
		free(c->v[i].name);
	}
	free(c->v);
	free(c->a_name);
	free(c->b_name);
	memset(c, 0, sizeof(*c));
}

int kp_compare_suites(const struct kp_suite *a, const struct kp_suite *b, const struct kp_compare_opts *o,
                      struct kp_compare *out, struct kp_error *err)
{
	struct kp_buf key = KP_BUF_INIT;
	size_t alloc = 0;
	double *d;

	memset(out, 0, sizeof(*out));
	out->a_name = kp_xstrdup(a->name ? a->name : "A");
	out->b_name = kp_xstrdup(b->name ? b->name : "B");
	for (int side = 0; side < 2; side++) {
		const struct kp_suite *s = side ? b : a;
		for (size_t i = 0; i < s->n; i++) {
			kp_buf_reset(&key);
			key_of(&s->v[i], &key);
			struct kp_compare_row *r = row_for(out, key.buf, s->v[i].name, &alloc);
			if (side)
				take(&r->b, &r->b_correct, &s->v[i]);
			else
				take(&r->a, &r->a_correct, &s->v[i]);
		}
	}
	kp_buf_release(&key);
	d = kp_xcalloc(out->n ? out->n : 1, sizeof(double));
	for (size_t i = 0; i < out->n; i++) {
		struct kp_compare_row *r = &out->v[i];
		if (isnan(r->a) || isnan(r->b))
			continue;
		r->ratio = r->a / r->b;
		d[out->paired++] = log(r->ratio);
		out->a_faster += r->ratio > 1 && !same(r->a, r->b);
		out->b_faster += r->ratio < 1 && !same(r->a, r->b);
		out->ties += same(r->a, r->b);
	}
	if (!out->paired) {
		free(d);
		return kp_error_set(
		    err, KP_EINVAL,
		    "suites '%s' and '%s' share no task with an eager baseline in both: nothing "
		    "to compare (KernelBench tasks pair by level and problem, others by name)",
		    out->a_name, out->b_name);
	}
	double sum = 0;
	for (long i = 0; i < out->paired; i++)
		sum += d[i];
	out->geomean_ratio = exp(sum / (double)out->paired);
	out->resamples = o && o->resamples > 0 ? o->resamples : 10000;
	out->level = o && o->level > 0 ? o->level : 0.95;
	kp_bootstrap_geomean(d, (size_t)out->paired, out->resamples, out->level, o && o->seed ? o->seed : 1,
	                     &out->ci_lo, &out->ci_hi);
	kp_wilcoxon(d, (size_t)out->paired, &out->w);
	free(d);
	return 0;
}

json_t *kp_compare_to_json(const struct kp_compare *c)
{
	json_t *o = json_object(), *ci = json_object(), *w = json_object(), *rows = json_array();
	long only_a = 0, only_b = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct kp_compare_row *r = &c->v[i];
		json_t *x = json_object();
		only_a += !isnan(r->a) && isnan(r->b);
		only_b += isnan(r->a) && !isnan(r->b);
		kp_json_set(x, "key", json_string(r->key));
		kp_json_set(x, "name", json_string(r->name));
		kp_json_set(x, "a", kp_json_real(r->a));
		kp_json_set(x, "b", kp_json_real(r->b));
		kp_json_set(x, "a_correct", json_boolean(r->a_correct));
		kp_json_set(x, "b_correct", json_boolean(r->b_correct));
		kp_json_set(x, "ratio", kp_json_real(r->ratio));
		json_array_append_new(rows, x);
	}
	kp_json_set(o, "schema", json_string("kernelpro.compare/1"));
	kp_json_set(o, "a", json_string(c->a_name));
	kp_json_set(o, "b", json_string(c->b_name));
	kp_json_set(o, "paired", json_integer(c->paired));
	kp_json_set(o, "only_a", json_integer(only_a));
	kp_json_set(o, "only_b", json_integer(only_b));
	kp_json_set(o, "a_faster", json_integer(c->a_faster));
	kp_json_set(o, "b_faster", json_integer(c->b_faster));
	kp_json_set(o, "ties", json_integer(c->ties));
	kp_json_set(o, "geomean_ratio", kp_json_real(c->geomean_ratio));
	kp_json_set(ci, "level", kp_json_real(c->level));
	kp_json_set(ci, "lo", kp_json_real(c->ci_lo));
	kp_json_set(ci, "hi", kp_json_real(c->ci_hi));
	kp_json_set(ci, "resamples", json_integer(c->resamples));
	kp_json_set(o, "ci", ci);
	kp_json_set(w, "n", json_integer(c->w.n));
	kp_json_set(w, "w_plus", kp_json_real(c->w.w_plus));
	kp_json_set(w, "w_minus", kp_json_real(c->w.w_minus));
	kp_json_set(w, "statistic", kp_json_real(c->w.statistic));
	kp_json_set(w, "z", kp_json_real(c->w.z));
	kp_json_set(w, "p", kp_json_real(c->w.p));
	kp_json_set(w, "method", json_string(c->w.exact ? "exact" : "normal approximation"));
	kp_json_set(o, "wilcoxon", w);
	kp_json_set(o, "tasks", rows);
	return o;
}
