/* kp-native-harness: the GPU work around the libraries: seeded inputs, their scaled variant, poison,
 * byte comparisons, the elementwise comparison of outputs and the statistics the degenerate-output
 * checks judge (lib/eval/outcheck.c). Reductions go through shared memory: one atomic per block. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nh.h"

/* Fill kinds, as enum kp_fill_kind in include/kernelpro/task.h. */
enum { FILL_UNIFORM, FILL_NORMAL, FILL_RANDINT, FILL_CONST, FILL_ARANGE };

#define BLOCK 256

__device__ __host__ static inline uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

uint64_t splitmix64_host(uint64_t x)
{
	return splitmix64(x);
}

__device__ static inline double u01(uint64_t seed, uint64_t i, uint64_t lane)
{
	return (double)(splitmix64(seed ^ splitmix64(2 * i + lane)) >> 11) * (1.0 / 9007199254740992.0);
}

__device__ static inline void store(void *p, int64_t i, int dtype, double v)
{
	switch (dtype) {
	case KP_ABI_F32: ((float *)p)[i] = (float)v; break;
	case KP_ABI_F16: ((__half *)p)[i] = __float2half((float)v); break;
	case KP_ABI_BF16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16((float)v); break;
	case KP_ABI_F64: ((double *)p)[i] = v; break;
	case KP_ABI_I32: ((int32_t *)p)[i] = (int32_t)v; break;
	case KP_ABI_I64: ((int64_t *)p)[i] = (int64_t)v; break;
	case KP_ABI_I8: ((int8_t *)p)[i] = (int8_t)v; break;
	default: ((uint8_t *)p)[i] = (uint8_t)v; break;
	}
}

__device__ __host__ static inline double load(const void *p, int64_t i, int dtype)
{
	switch (dtype) {
	case KP_ABI_F32: return ((const float *)p)[i];
	case KP_ABI_F16: return __half2float(((const __half *)p)[i]);
	case KP_ABI_BF16: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
	case KP_ABI_F64: return ((const double *)p)[i];
	case KP_ABI_I32: return ((const int32_t *)p)[i];
	case KP_ABI_I64: return (double)((const int64_t *)p)[i];
	case KP_ABI_I8: return ((const int8_t *)p)[i];
	default: return ((const uint8_t *)p)[i];
	}
}

static int is_float(int dtype)
{
	return dtype <= KP_ABI_F64;
}

static int grid_for(int64_t n)
{
	int64_t g = (n + BLOCK - 1) / BLOCK;
	return (int)(g < 1 ? 1 : g > 65536 ? 65536 : g);
}

/* --- block reductions ---------------------------------------------------------------------------- */

struct op_sum {
	template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct op_min {
	template <typename T> __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
struct op_max {
	template <typename T> __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};

/* The block's reduction of v, valid in thread 0. Every thread of the block must call it. */
template <typename T, typename Op> __device__ T block_reduce(T v, Op op, T identity)
{
	__shared__ T part[BLOCK / 32];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (int o = 16; o; o >>= 1)
		v = op(v, __shfl_down_sync(0xffffffffu, v, o));
	__syncthreads(); /* an earlier call may still be reading part[] */
	if (!lane)
		part[warp] = v;
	__syncthreads();
	v = threadIdx.x < blockDim.x / 32 ? part[lane] : identity;
	if (!warp)
		for (int o = 16; o; o >>= 1)
			v = op(v, __shfl_down_sync(0xffffffffu, v, o));
	return v;
}

/* Doubles ordered as unsigned integers, for atomic min/max. */
__device__ __host__ static inline unsigned long long okey(double x)
{
	unsigned long long b;
	memcpy(&b, &x, sizeof(b));
	return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

static double from_okey(unsigned long long k)
{
	unsigned long long b = (k >> 63) ? (k & ~0x8000000000000000ull) : ~k;
	double x;
	memcpy(&x, &b, sizeof(x));
	return x;
}

struct cmp_stats {
	/* elementwise: |ref - out| <= atol + rtol * |out| */
	unsigned long long nbad, nan_bad, poison_left, nfinite, first_bad;
	unsigned long long max_bits; /* bits of the largest finite |diff| (non-negative doubles order as integers) */
	double sum_abs;
	/* over the elements where both are finite (the degenerate-output statistics) */
	unsigned long long nboth, rmin, rmax, omin, omax; /* okey() order */
	unsigned long long rmaxabs_bits;
	double ref_sumsq, diff_sumsq;
	/* the second pass: |out - ref| > rel * (|ref| + rms(ref)) */
	unsigned long long nrel, first_rel;
};

/* --- inputs -------------------------------------------------------------------------------------- */

__global__ void fill_kernel(void *p, int64_t n, int dtype, int kind, double a, double b, uint64_t seed)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
		double v;
		switch (kind) {
		case FILL_NORMAL: {
			double u1 = fmax(u01(seed, i, 0), 1e-300), u2 = u01(seed, i, 1);
			v = a + b * sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
			break;
		}
		case FILL_RANDINT: v = floor(a + u01(seed, i, 0) * (b - a)); break;
		case FILL_CONST: v = a; break;
		case FILL_ARANGE: v = a + (double)i * b; break;
		default: v = a + u01(seed, i, 0) * (b - a); break;
		}
		store(p, i, dtype, v);
	}
}

__global__ void scale_kernel(void *p, int64_t n, int dtype, double s)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
		store(p, i, dtype, load(p, i, dtype) * s);
}

void gpu_alloc(struct nh *h)
{
	long long groups = 0;
	CK(cudaMalloc(&h->d_stats, sizeof(*h->d_stats)));
	CK(cudaMalloc(&h->d_count, sizeof(*h->d_count)));
	CK(cudaMalloc(&h->d_sums, 2 * sizeof(double)));
	if (h->S.l2_flush)
		CK(cudaMalloc(&h->flush_buf, FLUSH_BYTES));
	for (int i = 0; i < h->S.nout; i++) {
		struct kp_outlayout rows, chans;
		long long shape[KP_NATSPEC_DIMS];
		for (int d = 0; d < h->S.out[i].ndim; d++)
			shape[d] = h->S.out[i].shape[d];
		kp_outcheck_layouts(shape, h->S.out[i].ndim, &rows, &chans);
		groups = rows.nseg > groups ? rows.nseg : groups;
		groups = chans.nseg > groups ? chans.nseg : groups;
	}
	h->max_groups = groups;
	if (groups)
		CK(cudaMalloc(&h->d_groups, 2 * (size_t)groups * sizeof(double)));
}

static uint64_t input_seed(uint64_t trial_seed, int i)
{
	return splitmix64(trial_seed ^ splitmix64(0x1000 + (uint64_t)i));
}

void fill_inputs(struct nh *h, kp_tensor *t, uint64_t trial_seed)
{
	for (int i = 0; i < h->S.nin; i++) {
		const struct kp_natspec_tensor *s = &h->S.in[i];
		fill_kernel<<<grid_for(t[i].numel), BLOCK, 0, h->stream>>>(t[i].data, t[i].numel, s->dtype, s->fill, s->a,
									    s->b, input_seed(trial_seed, i));
	}
	CK(cudaGetLastError());
}

double input_scale(int dtype)
{
	return dtype == KP_ABI_F16 ? 4.0 : 64.0; /* a power of two: mantissas unchanged; fp16's range is small */
}

int scale_inputs(struct nh *h, kp_tensor *t)
{
	int n = 0;
	for (int i = 0; i < h->S.nin; i++)
		if (is_float(h->S.in[i].dtype)) {
			scale_kernel<<<grid_for(t[i].numel), BLOCK, 0, h->stream>>>(t[i].data, t[i].numel, h->S.in[i].dtype,
										     input_scale(h->S.in[i].dtype));
			n++;
		}
	CK(cudaGetLastError());
	return n;
}

void copy_inputs(struct nh *h, kp_tensor *dst, const kp_tensor *src)
{
	for (int i = 0; i < h->S.nin; i++)
		CK(cudaMemcpyAsync(dst[i].data, src[i].data, h->S.in[i].bytes, cudaMemcpyDeviceToDevice, h->stream));
}

void poison_outputs(struct nh *h, kp_tensor *t, int byte)
{
	for (int i = 0; i < h->S.nout; i++)
		CK(cudaMemsetAsync(t[i].data, byte, h->S.out[i].bytes, h->stream));
}

/* --- counting ------------------------------------------------------------------------------------ */

__global__ void bytediff_kernel(const unsigned char *a, const unsigned char *b, size_t n, unsigned long long *count)
{
	unsigned long long c = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		c += a[i] != b[i];
	c = block_reduce(c, op_sum(), 0ull);
	if (!threadIdx.x && c)
		atomicAdd(count, c);
}

__global__ void nonfinite_kernel(const void *p, int64_t n, int dtype, unsigned long long *count)
{
	unsigned long long c = 0;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
		c += !isfinite(load(p, i, dtype));
	c = block_reduce(c, op_sum(), 0ull);
	if (!threadIdx.x && c)
		atomicAdd(count, c);
}

__global__ void sumsq_kernel(const void *p, int64_t n, int dtype, double *acc)
{
	double sq = 0, c = 0;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
		double v = load(p, i, dtype);
		if (isfinite(v)) {
			sq += v * v;
			c += 1;
		}
	}
	sq = block_reduce(sq, op_sum(), 0.0);
	c = block_reduce(c, op_sum(), 0.0);
	if (!threadIdx.x && c) {
		atomicAdd(&acc[0], sq);
		atomicAdd(&acc[1], c);
	}
}

static unsigned long long read_count(struct nh *h)
{
	unsigned long long c = 0;
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(&c, h->d_count, sizeof(c), cudaMemcpyDeviceToHost, h->stream));
	CK(cudaStreamSynchronize(h->stream));
	return c;
}

unsigned long long bytes_differ(struct nh *h, const void *a, const void *b, size_t n)
{
	CK(cudaMemsetAsync(h->d_count, 0, sizeof(*h->d_count), h->stream));
	bytediff_kernel<<<grid_for((int64_t)n), BLOCK, 0, h->stream>>>((const unsigned char *)a,
									(const unsigned char *)b, n, h->d_count);
	return read_count(h);
}

unsigned long long nonfinite(struct nh *h, const kp_tensor *t, int i)
{
	if (!is_float(h->S.out[i].dtype))
		return 0;
	CK(cudaMemsetAsync(h->d_count, 0, sizeof(*h->d_count), h->stream));
	nonfinite_kernel<<<grid_for(t[i].numel), BLOCK, 0, h->stream>>>(t[i].data, t[i].numel, h->S.out[i].dtype,
									 h->d_count);
	return read_count(h);
}

double output_rms(struct nh *h, const kp_tensor *t, int i)
{
	double acc[2];
	if (!is_float(h->S.out[i].dtype) || !t[i].numel)
		return 0;
	CK(cudaMemsetAsync(h->d_sums, 0, 2 * sizeof(double), h->stream));
	sumsq_kernel<<<grid_for(t[i].numel), BLOCK, 0, h->stream>>>(t[i].data, t[i].numel, h->S.out[i].dtype, h->d_sums);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(acc, h->d_sums, sizeof(acc), cudaMemcpyDeviceToHost, h->stream));
	CK(cudaStreamSynchronize(h->stream));
	return acc[1] > 0 ? sqrt(acc[0] / acc[1]) : 0;
}

/* --- comparing outputs --------------------------------------------------------------------------- */


__device__ static inline int all_bytes(const void *p, int64_t i, int size, unsigned char byte)
{
	const unsigned char *c = (const unsigned char *)p + i * size;
	for (int k = 0; k < size; k++)
		if (c[k] != byte)
			return 0;
	return 1;
}

static __device__ unsigned long long double_bits(double d)
{
	return (unsigned long long)__double_as_longlong(d);
}

__global__ void compare_kernel(const void *ref, const void *got, int64_t n, int dtype, int size, double atol,
			       double rtol, int isf, unsigned char poison, struct cmp_stats *st)
{
	unsigned long long nbad = 0, nan_bad = 0, poison_left = 0, nfin = 0, first = ~0ull, maxb = 0;
	unsigned long long nboth = 0, rmin = ~0ull, rmax = 0, omin = ~0ull, omax = 0, rabs = 0;
	double sum = 0, rsq = 0, dsq = 0;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
		double r = load(ref, i, dtype), g = load(got, i, dtype);
		double d = fabs(r - g);
		int good = isf ? ((d <= atol + rtol * fabs(g)) || r == g) : (r == g);
		if (isfinite(d)) {
			unsigned long long bits = double_bits(d);
			maxb = bits > maxb ? bits : maxb;
			sum += d;
			nfin++;
		}
		if (isfinite(r) && isfinite(g)) {
			unsigned long long kr = okey(r), kg = okey(g), ka = double_bits(fabs(r));
			nboth++;
			rmin = kr < rmin ? kr : rmin;
			rmax = kr > rmax ? kr : rmax;
			omin = kg < omin ? kg : omin;
			omax = kg > omax ? kg : omax;
			rabs = ka > rabs ? ka : rabs;
			rsq += r * r;
			dsq += (g - r) * (g - r);
		}
		if (!good) {
			nbad++;
			if ((unsigned long long)i < first)
				first = (unsigned long long)i;
			if (isnan(g) && isfinite(r))
				nan_bad++;
			if (all_bytes(got, i, size, poison) && !all_bytes(ref, i, size, poison))
				poison_left++;
		}
	}
	nbad = block_reduce(nbad, op_sum(), 0ull);
	nan_bad = block_reduce(nan_bad, op_sum(), 0ull);
	poison_left = block_reduce(poison_left, op_sum(), 0ull);
	nfin = block_reduce(nfin, op_sum(), 0ull);
	first = block_reduce(first, op_min(), ~0ull);
	maxb = block_reduce(maxb, op_max(), 0ull);
	sum = block_reduce(sum, op_sum(), 0.0);
	nboth = block_reduce(nboth, op_sum(), 0ull);
	rmin = block_reduce(rmin, op_min(), ~0ull);
	rmax = block_reduce(rmax, op_max(), 0ull);
	omin = block_reduce(omin, op_min(), ~0ull);
	omax = block_reduce(omax, op_max(), 0ull);
	rabs = block_reduce(rabs, op_max(), 0ull);
	rsq = block_reduce(rsq, op_sum(), 0.0);
	dsq = block_reduce(dsq, op_sum(), 0.0);
	if (threadIdx.x)
		return;
	if (nbad) {
		atomicAdd(&st->nbad, nbad);
		atomicAdd(&st->nan_bad, nan_bad);
		atomicAdd(&st->poison_left, poison_left);
		atomicMin(&st->first_bad, first);
	}
	if (nfin) {
		atomicAdd(&st->nfinite, nfin);
		atomicMax(&st->max_bits, maxb);
		atomicAdd(&st->sum_abs, sum);
	}
	if (nboth) {
		atomicAdd(&st->nboth, nboth);
		atomicMin(&st->rmin, rmin);
		atomicMax(&st->rmax, rmax);
		atomicMin(&st->omin, omin);
		atomicMax(&st->omax, omax);
		atomicMax(&st->rmaxabs_bits, rabs);
		atomicAdd(&st->ref_sumsq, rsq);
		atomicAdd(&st->diff_sumsq, dsq);
	}
}

__global__ void relative_kernel(const void *ref, const void *got, int64_t n, int dtype, double rel, double rms,
				struct cmp_stats *st)
{
	unsigned long long c = 0, first = ~0ull;
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
		double r = load(ref, i, dtype), g = load(got, i, dtype);
		if (isfinite(r) && isfinite(g) && fabs(g - r) > rel * (fabs(r) + rms)) {
			c++;
			first = (unsigned long long)i < first ? (unsigned long long)i : first;
		}
	}
	c = block_reduce(c, op_sum(), 0ull);
	first = block_reduce(first, op_min(), ~0ull);
	if (!threadIdx.x && c) {
		atomicAdd(&st->nrel, c);
		atomicMin(&st->first_rel, first);
	}
}

/*
 * Per-group sums of ref^2 and (out - ref)^2 over the flat index i = o * M + c (M = nseg * inner), whose
 * group is c / inner: threads over the columns c (coalesced), blockIdx.y over the rows o. A warp whose
 * columns share one group (rows longer than 32, channels of 32+ elements) adds once.
 */
__global__ void group_kernel(const void *ref, const void *got, int64_t outer, int64_t M, int64_t inner, int dtype,
			     double *r2, double *d2)
{
	int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	int active = c < M;
	double a = 0, b = 0;
	long long seg = active ? (long long)(c / inner) : -1, seg0;
	if (active)
		for (int64_t o = blockIdx.y; o < outer; o += gridDim.y) {
			double r = load(ref, o * M + c, dtype), g = load(got, o * M + c, dtype);
			if (isfinite(r) && isfinite(g)) {
				a += r * r;
				b += (g - r) * (g - r);
			}
		}
	seg0 = __shfl_sync(0xffffffffu, seg, 0);
	if (__all_sync(0xffffffffu, !active || seg == seg0)) {
		for (int o = 16; o; o >>= 1) {
			a += __shfl_down_sync(0xffffffffu, a, o);
			b += __shfl_down_sync(0xffffffffu, b, o);
		}
		if (!(threadIdx.x & 31) && seg0 >= 0) {
			atomicAdd(&r2[seg0], a);
			atomicAdd(&d2[seg0], b);
		}
	} else if (active) {
		atomicAdd(&r2[seg], a);
		atomicAdd(&d2[seg], b);
	}
}

static double read_value(const void *p, unsigned long long idx, int dtype, size_t size)
{
	unsigned char buf[8] = {0};
	CK(cudaMemcpy(buf, (const char *)p + (size_t)idx * size, size, cudaMemcpyDeviceToHost));
	return load(buf, 0, dtype);
}

static void coords_of(const struct kp_natspec_tensor *t, unsigned long long idx, char *pos, size_t n)
{
	int64_t coord[KP_NATSPEC_DIMS] = {0};
	size_t len = 0;
	pos[0] = '\0';
	for (int d = t->ndim - 1; d >= 0; d--) {
		coord[d] = (int64_t)(idx % (unsigned long long)t->shape[d]);
		idx /= (unsigned long long)t->shape[d];
	}
	for (int d = 0; d < t->ndim && len + 24 < n; d++)
		len += (size_t)snprintf(pos + len, n - len, "%s%lld", d ? ", " : "", (long long)coord[d]);
}

static void groups_of(struct nh *h, const void *ref, const void *got, const struct kp_natspec_tensor *t,
		      const struct kp_outlayout *lay, double ref_maxabs, const struct kp_outbounds *b,
		      struct kp_outgroups *g)
{
	int64_t M = (int64_t)lay->nseg * lay->inner, outer = t->numel / M;
	int64_t gx = (M + BLOCK - 1) / BLOCK, gy = 4096 / gx;
	double *host;
	memset(g, 0, sizeof(*g));
	g->worst = -1;
	if (!lay->nseg || lay->nseg > h->max_groups)
		return;
	gy = gy < 1 ? 1 : gy > outer ? outer : gy > 65535 ? 65535 : gy;
	CK(cudaMemsetAsync(h->d_groups, 0, 2 * (size_t)lay->nseg * sizeof(double), h->stream));
	group_kernel<<<dim3((unsigned)gx, (unsigned)gy), BLOCK, 0, h->stream>>>(
		ref, got, outer, M, lay->inner, t->dtype, h->d_groups, h->d_groups + lay->nseg);
	CK(cudaGetLastError());
	host = (double *)malloc(2 * (size_t)lay->nseg * sizeof(double));
	if (!host)
		harness_fail("out of host memory for %lld groups", lay->nseg);
	CK(cudaMemcpyAsync(host, h->d_groups, 2 * (size_t)lay->nseg * sizeof(double), cudaMemcpyDeviceToHost,
			   h->stream));
	CK(cudaStreamSynchronize(h->stream));
	kp_outcheck_groups(host, host + lay->nseg, lay->nseg, lay->size, ref_maxabs, b, g);
	free(host);
}

static unsigned skip_mask(const struct nh *h)
{
	unsigned m = 0;
	for (int c = KP_OUTCHECK_CONSTANT; c <= KP_OUTCHECK_RELATIVE; c++)
		if (kp_natspec_off(&h->S, kp_outcheck_id((enum kp_outcheck)c)))
			m |= 1u << c;
	return m;
}

/* The degenerate-output checks on output i, whose elements all passed; returns the failing check. */
static int degenerate_check(struct nh *h, int i, const void *ref, const void *got, double atol,
			    const struct cmp_stats *st, char *detail, size_t dn)
{
	const struct kp_natspec_tensor *t = &h->S.out[i];
	struct kp_outbounds b;
	struct kp_outstats os;
	struct kp_outlayout rows, chans;
	struct cmp_stats st2 = *st;
	long long shape[KP_NATSPEC_DIMS];
	char pos[160];
	double rms;

	if (!kp_outcheck_applies(t->dtype) || !st->nboth)
		return 0;
	kp_outcheck_bounds(t->dtype, atol, t->b, &b);
	memset(&os, 0, sizeof(os));
	os.n = (long long)st->nboth;
	os.ref_min = from_okey(st->rmin);
	os.ref_max = from_okey(st->rmax);
	os.out_min = from_okey(st->omin);
	os.out_max = from_okey(st->omax);
	memcpy(&os.ref_maxabs, &st->rmaxabs_bits, sizeof(double));
	os.ref_sumsq = st->ref_sumsq;
	os.diff_sumsq = st->diff_sumsq;
	rms = sqrt(os.ref_sumsq / (double)os.n);
	st2.nrel = 0;
	st2.first_rel = ~0ull;
	CK(cudaMemcpyAsync(h->d_stats, &st2, sizeof(st2), cudaMemcpyHostToDevice, h->stream));
	relative_kernel<<<grid_for(t->numel), BLOCK, 0, h->stream>>>(ref, got, t->numel, t->dtype, b.rel, rms,
								      h->d_stats);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(&st2, h->d_stats, sizeof(st2), cudaMemcpyDeviceToHost, h->stream));
	CK(cudaStreamSynchronize(h->stream));
	os.nbad = (long long)st2.nrel;
	os.first_bad = st2.nrel ? (long long)st2.first_rel : -1;
	pos[0] = '\0';
	if (st2.nrel) {
		size_t size = t->bytes / (size_t)t->numel;
		os.first_got = read_value(got, st2.first_rel, t->dtype, size);
		os.first_want = read_value(ref, st2.first_rel, t->dtype, size);
		coords_of(t, st2.first_rel, pos, sizeof(pos));
	}
	for (int d = 0; d < t->ndim; d++)
		shape[d] = t->shape[d];
	kp_outcheck_layouts(shape, t->ndim, &rows, &chans);
	groups_of(h, ref, got, t, &rows, os.ref_maxabs, &b, &os.rows);
	groups_of(h, ref, got, t, &chans, os.ref_maxabs, &b, &os.chans);
	return (int)kp_outcheck_judge(&os, &b, skip_mask(h), t->name, pos, detail, dn);
}

/* The detail of an element out of tolerance: counts, the first one, and the poison left behind. */
static void mismatch_detail(struct nh *h, int i, const void *ref, const void *got, double atol,
			    const struct cmp_stats *st, double mx, double mean, char *detail, size_t dn)
{
	const struct kp_natspec_tensor *t = &h->S.out[i];
	size_t size = t->bytes / (size_t)t->numel;
	char pos[160];
	double rv = read_value(ref, st->first_bad, t->dtype, size), gv = read_value(got, st->first_bad, t->dtype, size);
	coords_of(t, st->first_bad, pos, sizeof(pos));
	snprintf(detail, dn,
		 "output '%s': %llu of %lld elements differ (atol %g, rtol %g); max |diff| %.6g, mean |diff| %.6g; "
		 "first at [%s]: got %.9g, expected %.9g",
		 t->name, st->nbad, (long long)t->numel, atol, t->b, mx, mean, pos, gv, rv);
	if (st->poison_left) {
		size_t l = strlen(detail);
		snprintf(detail + l, dn - l,
			 "; %llu elements still hold the poison written before the call: never written (grid too small, "
			 "or an early return)",
			 st->poison_left);
		res_flag(h, "output_poison", "warn", "output '%s': %llu elements never written", t->name, st->poison_left);
	}
}

int compare_outputs(struct nh *h, const kp_tensor *ref, const kp_tensor *got, const double *atols, int poison,
		    int degenerate, double *max_abs, double *mean_abs, char *detail, size_t dn)
{
	*max_abs = 0;
	*mean_abs = 0;
	for (int i = 0; i < h->S.nout; i++) {
		const struct kp_natspec_tensor *t = &h->S.out[i];
		struct cmp_stats st;
		int size = (int)(t->bytes / (size_t)t->numel), check;
		double mx, mean, atol = atols ? atols[i] : t->a;

		memset(&st, 0, sizeof(st));
		st.first_bad = st.rmin = st.omin = st.first_rel = ~0ull;
		CK(cudaMemcpyAsync(h->d_stats, &st, sizeof(st), cudaMemcpyHostToDevice, h->stream));
		compare_kernel<<<grid_for(t->numel), BLOCK, 0, h->stream>>>(ref[i].data, got[i].data, t->numel, t->dtype,
									     size, atol, t->b, is_float(t->dtype),
									     (unsigned char)poison, h->d_stats);
		CK(cudaGetLastError());
		CK(cudaMemcpyAsync(&st, h->d_stats, sizeof(st), cudaMemcpyDeviceToHost, h->stream));
		CK(cudaStreamSynchronize(h->stream));
		memcpy(&mx, &st.max_bits, sizeof(mx));
		mean = st.nfinite ? st.sum_abs / (double)st.nfinite : NAN;
		*max_abs = mx > *max_abs ? mx : *max_abs;
		*mean_abs = mean > *mean_abs ? mean : *mean_abs;
		if (st.nbad) {
			mismatch_detail(h, i, ref[i].data, got[i].data, atol, &st, mx, mean, detail, dn);
			return -1;
		}
		if (degenerate && (check = degenerate_check(h, i, ref[i].data, got[i].data, atol, &st, detail, dn)))
			return check;
	}
	return 0;
}
