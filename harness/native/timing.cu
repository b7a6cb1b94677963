/* kp-native-harness: timing (CUDA events around each call, an L2 flush before each, warm-ups and a
 * discarded trial; host-timed calls with a full device sync beside them) and the energy loops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nh.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void stats_of(double *v, int n, double *median, double *mean, double *sd, double *mn, double *mx)
{
	double s = 0, ss = 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	for (int i = 0; i < n; i++)
		s += v[i];
	*mean = s / n;
	for (int i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = sqrt(ss / n);
	*mn = v[0];
	*mx = v[n - 1];
}

static void flush_l2(struct nh *h, int k)
{
	if (h->S.l2_flush)
		CK(cudaMemsetAsync(h->flush_buf, k & 0xff, FLUSH_BYTES, h->stream));
}

/* Calls timed both ways; `l` NULL times a call that does nothing (the harness's own overhead). */
static double host_gap(struct nh *h, const struct lib *l, const kp_tensor *in, kp_tensor *out, cudaEvent_t a,
		       cudaEvent_t b)
{
	double gaps[HOST_TRIALS], med, d;
	for (int k = 0; k < HOST_TRIALS; k++) {
		float ms = 0;
		CK(cudaDeviceSynchronize());
		flush_l2(h, k);
		CK(cudaDeviceSynchronize());
		double h0 = mono();
		CK(cudaEventRecord(a, h->stream));
		int rc = l ? l->run(in, h->S.nin, out, h->S.nout, (kp_stream_t)h->stream) : 0;
		cudaEventRecord(b, h->stream);
		if (l)
			check_after(l, rc, "timing");
		else
			CK(cudaDeviceSynchronize());
		double h1 = mono();
		CK(cudaEventElapsedTime(&ms, a, b));
		gaps[k] = (h1 - h0) * 1e3 - ms;
	}
	stats_of(gaps, HOST_TRIALS, &med, &d, &d, &d, &d);
	return med;
}

struct tstats time_lib(struct nh *h, const struct lib *l, const kp_tensor *in, kp_tensor *out)
{
	struct tstats t;
	int n = h->S.trials;
	double *v = (double *)calloc((size_t)n + 1, sizeof(double));
	cudaEvent_t a, b;

	if (!v)
		harness_fail("out of host memory for %d timings", n);
	memset(&t, 0, sizeof(t));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int i = 0; i < h->S.warmup; i++)
		call(h, l, in, out, "warm-up");
	for (int k = 0; k < h->S.trials + h->S.discard; k++) {
		float ms = 0;
		CK(cudaDeviceSynchronize());
		flush_l2(h, k);
		CK(cudaEventRecord(a, h->stream));
		int rc = l->run(in, h->S.nin, out, h->S.nout, (kp_stream_t)h->stream);
		cudaEventRecord(b, h->stream);
		check_after(l, rc, "timing");
		CK(cudaEventElapsedTime(&ms, a, b));
		if (k >= h->S.discard)
			v[k - h->S.discard] = ms;
	}
	t.gap = host_gap(h, l, in, out, a, b);
	t.n = n;
	stats_of(v, n, &t.median, &t.mean, &t.std, &t.min, &t.max);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	free(v);
	return t;
}

double lib_gap(struct nh *h, const struct lib *l, const kp_tensor *in, kp_tensor *out)
{
	cudaEvent_t a, b;
	double g;
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	g = host_gap(h, l, in, out, a, b);
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return g;
}

double noop_gap(struct nh *h)
{
	return lib_gap(h, NULL, NULL, NULL);
}

/* A JSON number, or null (JSON has no NaN). */
static const char *num(double v, char *buf, size_t n)
{
	if (isfinite(v))
		snprintf(buf, n, "%.9g", v);
	else
		snprintf(buf, n, "null");
	return buf;
}

void emit_timing(const char *key, const struct tstats *t)
{
	char b[512], v[6][32];
	snprintf(b, sizeof(b),
		 "{\"median_ms\":%s,\"mean_ms\":%s,\"std_ms\":%s,\"min_ms\":%s,\"max_ms\":%s,\"trials\":%d,"
		 "\"host_median_ms\":%s}",
		 num(t->median, v[0], 32), num(t->mean, v[1], 32), num(t->std, v[2], 32), num(t->min, v[3], 32),
		 num(t->max, v[4], 32), t->n, num(t->median + t->gap, v[5], 32));
	res_raw(key, b);
}

void loop_lib(struct nh *h, const struct lib *l, const kp_tensor *in, kp_tensor *out, const char *key)
{
	long n = 0;
	double t0, t1;
	char buf[160];
	CK(cudaDeviceSynchronize());
	t0 = mono();
	do {
		/* Eight launches back to back, then one sync: the GPU stays busy, as it would in use. */
		for (int i = 0; i < 8; i++, n++) {
			int rc = l->run(in, h->S.nin, out, h->S.nout, (kp_stream_t)h->stream);
			if (rc)
				check_after(l, rc, "loop");
		}
		check_after(l, 0, "loop");
	} while (mono() - t0 < h->S.loop_s);
	t1 = mono();
	snprintf(buf, sizeof(buf), "{\"iterations\":%ld,\"t0\":%.9f,\"t1\":%.9f}", n, t0, t1);
	res_raw(key, buf);
}
