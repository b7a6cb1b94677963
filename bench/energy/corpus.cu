// kp-energy-corpus: the kernels of the energy-proxy validation. Each one stresses a different term
// of the proxy (DRAM bytes, uncoalesced sectors, spills, FP32, FP64, SFU, integer, tensor cores,
// latency); the first 17 are the H200 probe kernels (fixtures/h200-probe/kernels.cu).
//
//   kp-energy-corpus list                       names, one per line
//   kp-energy-corpus measure [opts] [--only a,b] [--interleave]
//                                               NVML energy per launch, JSON Lines on stdout
//   kp-energy-corpus profile [--only a,b]       each kernel once between markers, for ncu
//                                               (--profile-from-start off: warm-up is outside)
//
// In `profile`, kernel i is preceded by kp_corpus_marker<<<i+1, 1>>>: `kernelpro energy validate`
// joins ncu rows to measurements by that grid size.
#include <cuda_fp16.h>
#include <cuda_profiler_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/include/kp_native.h"
#include "kp_energy_cuda.h"
#include "kp_energy_kernels.cuh"

extern "C" {
#include "kernelpro/json.h"
}

/* ---- the kernels --------------------------------------------------------------------------------- */

__global__ void kp_corpus_marker(int *sink)
{
	if (threadIdx.x == 1024)
		sink[0] = blockIdx.x; /* never: a marker does no work */
}

__global__ void vec_add_naive(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}
__global__ void vec_add_f2(const float2 *a, const float2 *b, float2 *c, int n2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n2) {
		float2 x = a[i], y = b[i];
		c[i] = make_float2(x.x + y.x, x.y + y.y);
	}
}
__global__ void vec_add_f4(const float4 *a, const float4 *b, float4 *c, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4) {
		float4 x = a[i], y = b[i];
		c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	}
}
__global__ void copy_strided(const float *a, float *c, int n, int stride)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		long j = ((long)i * stride) % n;
		c[j] = a[j];
	}
}
__global__ void reduce_atomic(const float *a, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(out, a[i]);
}
__global__ void reduce_shfl(const float *a, float *out, int n)
{
	float s = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		s += a[i];
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_down_sync(0xffffffff, s, o);
	__shared__ float w[32];
	int l = threadIdx.x & 31, wid = threadIdx.x >> 5;
	if (l == 0)
		w[wid] = s;
	__syncthreads();
	if (wid == 0) {
		s = (l < blockDim.x / 32) ? w[l] : 0;
		for (int o = 16; o > 0; o >>= 1)
			s += __shfl_down_sync(0xffffffff, s, o);
		if (l == 0)
			atomicAdd(out, s);
	}
}
__global__ void sgemm_naive(const float *A, const float *B, float *C, int N)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < N && c < N) {
		float s = 0;
		for (int k = 0; k < N; k++)
			s += A[r * N + k] * B[k * N + c];
		C[r * N + c] = s;
	}
}
__global__ void sgemm_naive_uncoal(const float *A, const float *B, float *C, int N)
{
	int c = blockIdx.y * blockDim.y + threadIdx.y, r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < N && c < N) {
		float s = 0;
		for (int k = 0; k < N; k++)
			s += A[r * N + k] * B[k * N + c];
		C[r * N + c] = s;
	}
}
#define T 32
__global__ void sgemm_tiled(const float *A, const float *B, float *C, int N)
{
	__shared__ float As[T][T], Bs[T][T];
	int tx = threadIdx.x, ty = threadIdx.y, r = blockIdx.y * T + ty, c = blockIdx.x * T + tx;
	float s = 0;
	for (int t = 0; t < N; t += T) {
		As[ty][tx] = A[r * N + t + tx];
		Bs[ty][tx] = B[(t + ty) * N + c];
		__syncthreads();
#pragma unroll
		for (int k = 0; k < T; k++)
			s += As[ty][k] * Bs[k][tx];
		__syncthreads();
	}
	C[r * N + c] = s;
}
__global__ void transpose_conflict(const float *a, float *b, int N)
{
	__shared__ float t[32][32];
	int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
	t[threadIdx.y][threadIdx.x] = a[y * N + x];
	__syncthreads();
	x = blockIdx.y * 32 + threadIdx.x;
	y = blockIdx.x * 32 + threadIdx.y;
	b[y * N + x] = t[threadIdx.x][threadIdx.y];
}
__global__ void transpose_padded(const float *a, float *b, int N)
{
	__shared__ float t[32][33];
	int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
	t[threadIdx.y][threadIdx.x] = a[y * N + x];
	__syncthreads();
	x = blockIdx.y * 32 + threadIdx.x;
	y = blockIdx.x * 32 + threadIdx.y;
	b[y * N + x] = t[threadIdx.x][threadIdx.y];
}
__global__ void spill_local(const float *a, float *c, int n, int k)
{
	float buf[64];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	for (int j = 0; j < 64; j++)
		buf[j] = a[(i + j) % n];
	float s = 0;
	for (int j = 0; j < 64; j++)
		s += buf[(j * k + i) & 63];
	c[i] = s;
}
__global__ void spill_local_128(const float *a, float *c, int n, int k)
{
	float buf[128];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	for (int j = 0; j < 128; j++)
		buf[j] = a[(i + 3 * j) & (n - 1)] * (float)j;
	float s = 0;
	for (int j = 0; j < 128; j++)
		s += buf[(j * k + i) & 127];
	c[i] = s;
}
__global__ void divergent(const float *a, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float x = a[i];
	if (i & 1) {
		for (int j = 0; j < 64; j++)
			x = sinf(x) * 1.0001f;
	} else {
		for (int j = 0; j < 64; j++)
			x = cosf(x) * 0.9999f;
	}
	c[i] = x;
}
__global__ void swish_expf_fast(const float *a, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float x = a[i];
		c[i] = x / (1.0f + __expf(-x));
	}
}
__global__ void swish_div_fast(const float *a, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float x = a[i];
		c[i] = __fdividef(x, 1.0f + expf(-x));
	}
}
__global__ void swish_f4_fast(const float4 *a, float4 *c, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4) {
		float4 x = a[i];
		x.x = __fdividef(x.x, 1.0f + __expf(-x.x));
		x.y = __fdividef(x.y, 1.0f + __expf(-x.y));
		x.z = __fdividef(x.z, 1.0f + __expf(-x.z));
		x.w = __fdividef(x.w, 1.0f + __expf(-x.w));
		c[i] = x;
	}
}
__global__ void tiny_grid(const float *a, float *c, int n)
{
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		c[i] = a[i] * 2.0f;
}
__global__ void fma_chain_fp64(double *out, int iters)
{
	double a = threadIdx.x * 1e-3, b = 1.0001, c = 0.9999, d = 0.5;
	for (int i = 0; i < iters; i++) {
		a = fma(a, b, c);
		d = fma(d, c, b);
		b = fma(b, c, a * 1e-7);
		c = fma(c, d, -1e-7);
	}
	if (a + b + c + d == 12345.0)
		out[threadIdx.x] = a;
}
__global__ void daxpy(const double *x, double *y, double alpha, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = alpha * x[i] + y[i];
}
__global__ void sfu_loop(const float *a, float *c, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float x = a[i];
	for (int j = 0; j < iters; j++)
		x = __sinf(x) + __expf(-x * x);
	c[i] = x;
}
__global__ void int_hash(const int *a, int *c, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	unsigned h = (unsigned)a[i];
	for (int j = 0; j < iters; j++) {
		h ^= h >> 16;
		h *= 0x7feb352du;
		h ^= h >> 15;
		h *= 0x846ca68bu;
	}
	c[i] = (int)h;
}
__global__ void int_divmod(const int *a, int *c, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int x = a[i] | 1, s = 0;
	for (int j = 1; j <= iters; j++) {
		s += x / (j + 7);
		s ^= x % (j + 3);
	}
	c[i] = s;
}
__global__ void smem_pingpong(float *c, int iters)
{
	__shared__ float s[2][1024];
	int t = threadIdx.x;
	s[0][t] = t;
	__syncthreads();
	float acc = 0;
	for (int j = 0; j < iters; j++) {
		int from = j & 1;
		float v = s[from][(t * 33 + j) & 1023];
		s[from ^ 1][t] = v + 1.0f;
		acc += v;
		__syncthreads();
	}
	if (acc == -1.0f)
		c[t] = acc;
}
__global__ void hadd2_f16(const half2 *a, const half2 *b, half2 *c, int n2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n2)
		c[i] = __hadd2(a[i], b[i]);
}

/* ---- cuBLAS, loaded at run time so the binary needs no libcublas to start ------------------------- */

typedef int (*cublas_create_fn)(void **);
typedef int (*cublas_set_stream_fn)(void *, cudaStream_t);
typedef int (*cublas_set_math_fn)(void *, int);
typedef int (*cublas_gemm_ex_fn)(void *, int, int, int, int, int, const void *, const void *, int, int, const void *,
				 int, int, const void *, void *, int, int, int, int);
static struct {
	void *lib, *handle;
	cublas_set_stream_fn set_stream;
	cublas_set_math_fn set_math;
	cublas_gemm_ex_fn gemm_ex;
	char why[256];
} cublas;

enum { CUBLAS_OP_N_ = 0, CUDA_R_32F_ = 0, CUDA_R_64F_ = 1, CUDA_R_16F_ = 2, CUBLAS_DEFAULT_MATH_ = 0,
       CUBLAS_TF32_TENSOR_OP_MATH_ = 3, CUBLAS_COMPUTE_32F_ = 68, CUBLAS_COMPUTE_32F_FAST_TF32_ = 77,
       CUBLAS_COMPUTE_64F_ = 70, CUBLAS_GEMM_DEFAULT_ = -1 };

static int cublas_load(void)
{
	const char *names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
	cublas_create_fn create;
	if (cublas.handle)
		return 0;
	for (int i = 0; i < 3 && !cublas.lib; i++)
		cublas.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!cublas.lib) {
		snprintf(cublas.why, sizeof(cublas.why), "libcublas not found (%s)", dlerror());
		return -1;
	}
	*(void **)&create = dlsym(cublas.lib, "cublasCreate_v2");
	*(void **)&cublas.set_stream = dlsym(cublas.lib, "cublasSetStream_v2");
	*(void **)&cublas.set_math = dlsym(cublas.lib, "cublasSetMathMode");
	*(void **)&cublas.gemm_ex = dlsym(cublas.lib, "cublasGemmEx");
	if (!create || !cublas.set_stream || !cublas.set_math || !cublas.gemm_ex || create(&cublas.handle) != 0) {
		snprintf(cublas.why, sizeof(cublas.why), "libcublas lacks cublasGemmEx or cannot create a handle");
		cublas.handle = NULL;
		return -1;
	}
	return 0;
}

/* ---- the corpus table -------------------------------------------------------------------------- */

/* Typed buffers, so every kernel reads well-formed values of its own type (reinterpreted float
 * bits would be NaNs and denormals in half or double, and power depends on the data). */
struct bufs {
	float *a, *b, *c, *o;
	__half *ha, *hb, *hc;
	double *da, *db, *dc;
	int sms;
};
static struct bufs B;

#define N26 (1 << 26)
#define GEMM_N 2048

static int gemm(cudaStream_t s, int type, int compute, int math)
{
	static const float one = 1, zero = 0;
	static const double done = 1, dzero = 0;
	const void *al = compute == CUBLAS_COMPUTE_64F_ ? (const void *)&done : (const void *)&one;
	const void *be = compute == CUBLAS_COMPUTE_64F_ ? (const void *)&dzero : (const void *)&zero;
	const void *a = type == CUDA_R_16F_ ? (const void *)B.ha : type == CUDA_R_64F_ ? (const void *)B.da : B.a;
	const void *b = type == CUDA_R_16F_ ? (const void *)B.hb : type == CUDA_R_64F_ ? (const void *)B.db : B.b;
	void *c = type == CUDA_R_16F_ ? (void *)B.hc : type == CUDA_R_64F_ ? (void *)B.dc : (void *)B.c;
	cublas.set_stream(cublas.handle, s);
	cublas.set_math(cublas.handle, math);
	return cublas.gemm_ex(cublas.handle, CUBLAS_OP_N_, CUBLAS_OP_N_, GEMM_N, GEMM_N, GEMM_N, al, a, type, GEMM_N, b, type,
			      GEMM_N, be, c, type, GEMM_N, compute, CUBLAS_GEMM_DEFAULT_);
}

#define G(n) (unsigned)(((n) + 255) / 256)
static int k_vec_add_naive(void *, cudaStream_t s) { vec_add_naive<<<G(N26), 256, 0, s>>>(B.a, B.b, B.c, N26); return 0; }
static int k_vec_add_f4(void *, cudaStream_t s) { vec_add_f4<<<G(N26 / 4), 256, 0, s>>>((float4 *)B.a, (float4 *)B.b, (float4 *)B.c, N26 / 4); return 0; }
static int k_copy_strided(void *, cudaStream_t s) { copy_strided<<<G(N26), 256, 0, s>>>(B.a, B.c, N26, 33); return 0; }
static int k_reduce_atomic(void *, cudaStream_t s) { reduce_atomic<<<G(1 << 22), 256, 0, s>>>(B.a, B.o, 1 << 22); return 0; }
static int k_reduce_shfl(void *, cudaStream_t s) { reduce_shfl<<<B.sms * 8, 256, 0, s>>>(B.a, B.o, N26); return 0; }
static int k_sgemm_naive(void *, cudaStream_t s) { sgemm_naive<<<dim3(GEMM_N / 16, GEMM_N / 16), dim3(16, 16), 0, s>>>(B.a, B.b, B.c, GEMM_N); return 0; }
static int k_sgemm_naive_uncoal(void *, cudaStream_t s) { sgemm_naive_uncoal<<<dim3(1024 / 16, 1024 / 16), dim3(16, 16), 0, s>>>(B.a, B.b, B.c, 1024); return 0; }
static int k_sgemm_tiled(void *, cudaStream_t s) { sgemm_tiled<<<dim3(GEMM_N / T, GEMM_N / T), dim3(T, T), 0, s>>>(B.a, B.b, B.c, GEMM_N); return 0; }
static int k_transpose_conflict(void *, cudaStream_t s) { transpose_conflict<<<dim3(128, 128), dim3(32, 32), 0, s>>>(B.a, B.c, 4096); return 0; }
static int k_transpose_padded(void *, cudaStream_t s) { transpose_padded<<<dim3(128, 128), dim3(32, 32), 0, s>>>(B.a, B.c, 4096); return 0; }
static int k_spill_local(void *, cudaStream_t s) { spill_local<<<G(N26), 256, 0, s>>>(B.a, B.c, N26, 7); return 0; }
static int k_divergent(void *, cudaStream_t s) { divergent<<<G(N26) / 16, 256, 0, s>>>(B.a, B.c, N26 / 16); return 0; }
static int k_swish_ieee(void *, cudaStream_t s) { swish_ieee<<<G(N26), 256, 0, s>>>(B.a, B.c, N26); return 0; }
static int k_swish_fast(void *, cudaStream_t s) { swish_fast<<<G(N26), 256, 0, s>>>(B.a, B.c, N26); return 0; }
static int k_tiny_grid(void *, cudaStream_t s) { tiny_grid<<<1, 256, 0, s>>>(B.a, B.c, 1 << 20); return 0; }
static int k_cublas_sgemm(void *, cudaStream_t s) { return gemm(s, CUDA_R_32F_, CUBLAS_COMPUTE_32F_, CUBLAS_DEFAULT_MATH_); }
static int k_cublas_tf32(void *, cudaStream_t s) { return gemm(s, CUDA_R_32F_, CUBLAS_COMPUTE_32F_FAST_TF32_, CUBLAS_TF32_TENSOR_OP_MATH_); }
static int k_vec_add_small(void *, cudaStream_t s) { vec_add_naive<<<G(1 << 20), 256, 0, s>>>(B.a, B.b, B.c, 1 << 20); return 0; }
static int k_vec_add_f2(void *, cudaStream_t s) { vec_add_f2<<<G(N26 / 2), 256, 0, s>>>((float2 *)B.a, (float2 *)B.b, (float2 *)B.c, N26 / 2); return 0; }
static int k_copy_f4(void *, cudaStream_t s) { copy_f4<<<B.sms * 16, 256, 0, s>>>((float4 *)B.a, (float4 *)B.c, N26 / 4); return 0; }
static int k_swish_expf_fast(void *, cudaStream_t s) { swish_expf_fast<<<G(N26), 256, 0, s>>>(B.a, B.c, N26); return 0; }
static int k_swish_div_fast(void *, cudaStream_t s) { swish_div_fast<<<G(N26), 256, 0, s>>>(B.a, B.c, N26); return 0; }
static int k_swish_f4_fast(void *, cudaStream_t s) { swish_f4_fast<<<G(N26 / 4), 256, 0, s>>>((float4 *)B.a, (float4 *)B.c, N26 / 4); return 0; }
static int k_fma_fp32(void *, cudaStream_t s) { fma_chain_fp32<<<B.sms * 8, 256, 0, s>>>(B.c, 1 << 13); return 0; }
static int k_fma_fp64(void *, cudaStream_t s) { fma_chain_fp64<<<B.sms * 8, 256, 0, s>>>(B.dc, 1 << 11); return 0; }
static int k_daxpy(void *, cudaStream_t s) { daxpy<<<G(N26 / 2), 256, 0, s>>>(B.da, B.dc, 0.5, N26 / 2); return 0; }
static int k_sfu_loop(void *, cudaStream_t s) { sfu_loop<<<G(1 << 22), 256, 0, s>>>(B.a, B.c, 1 << 22, 256); return 0; }
static int k_int_hash(void *, cudaStream_t s) { int_hash<<<G(1 << 22), 256, 0, s>>>((const int *)B.a, (int *)B.c, 1 << 22, 256); return 0; }
static int k_int_divmod(void *, cudaStream_t s) { int_divmod<<<G(1 << 22), 256, 0, s>>>((const int *)B.a, (int *)B.c, 1 << 22, 64); return 0; }
static int k_smem_pingpong(void *, cudaStream_t s) { smem_pingpong<<<B.sms * 2, 1024, 0, s>>>(B.c, 4096); return 0; }
static int k_spill_local_128(void *, cudaStream_t s) { spill_local_128<<<G(1 << 24), 256, 0, s>>>(B.a, B.c, 1 << 24, 13); return 0; }
static int k_hadd2_f16(void *, cudaStream_t s) { hadd2_f16<<<G(N26 / 2), 256, 0, s>>>((const half2 *)B.ha, (const half2 *)B.hb, (half2 *)B.hc, N26 / 2); return 0; }
static int k_cublas_hgemm(void *, cudaStream_t s) { return gemm(s, CUDA_R_16F_, CUBLAS_COMPUTE_32F_, CUBLAS_DEFAULT_MATH_); }
static int k_cublas_dgemm(void *, cudaStream_t s) { return gemm(s, CUDA_R_64F_, CUBLAS_COMPUTE_64F_, CUBLAS_DEFAULT_MATH_); }
#undef G

struct entry {
	const char *name;
	kp_launch_fn launch;
	int needs_cublas;
	const char *what;
};

static const struct entry corpus[] = {
	{"vec_add_naive", k_vec_add_naive, 0, "probe: scalar float add, 2^26 (DRAM)"},
	{"vec_add_f4", k_vec_add_f4, 0, "probe: float4 add, 2^26 (DRAM, fewer instructions)"},
	{"copy_strided", k_copy_strided, 0, "probe: stride-33 scatter (uncoalesced sectors)"},
	{"reduce_atomic", k_reduce_atomic, 0, "probe: one address, 2^22 atomics (latency)"},
	{"reduce_shfl", k_reduce_shfl, 0, "probe: shuffle reduction, 2^26 (DRAM)"},
	{"sgemm_naive", k_sgemm_naive, 0, "probe: naive SGEMM 2048 (FP32, L1/L2)"},
	{"sgemm_naive_uncoal", k_sgemm_naive_uncoal, 0, "probe: naive SGEMM 1024, wrong mapping (uncoalesced)"},
	{"sgemm_tiled", k_sgemm_tiled, 0, "probe: 32x32-tiled SGEMM 2048 (FP32, shared memory)"},
	{"transpose_conflict", k_transpose_conflict, 0, "probe: transpose 4096, bank conflicts"},
	{"transpose_padded", k_transpose_padded, 0, "probe: transpose 4096, padded"},
	{"spill_local", k_spill_local, 0, "probe: float[64] in local memory (spills)"},
	{"divergent", k_divergent, 0, "probe: sinf/cosf by lane parity (divergence, SFU)"},
	{"swish_ieee", k_swish_ieee, 0, "probe: x/(1+expf(-x)), IEEE"},
	{"swish_fast", k_swish_fast, 0, "probe: __fdividef(x, 1+__expf(-x))"},
	{"tiny_grid", k_tiny_grid, 0, "probe: one block for 2^20 elements (latency)"},
	{"cublas_sgemm", k_cublas_sgemm, 1, "probe: cuBLAS SGEMM 2048 (FP32 SIMT)"},
	{"cublas_tf32", k_cublas_tf32, 1, "probe: cuBLAS TF32 GEMM 2048 (tensor cores)"},
	{"vec_add_small", k_vec_add_small, 0, "float add, 2^20 (L2-resident)"},
	{"vec_add_f2", k_vec_add_f2, 0, "float2 add, 2^26"},
	{"copy_f4", k_copy_f4, 0, "grid-stride float4 copy, 256 MiB"},
	{"swish_expf_fast", k_swish_expf_fast, 0, "x/(1+__expf(-x)): fast exp, IEEE division"},
	{"swish_div_fast", k_swish_div_fast, 0, "__fdividef(x, 1+expf(-x)): fast division, IEEE exp"},
	{"swish_f4_fast", k_swish_f4_fast, 0, "fast swish on float4"},
	{"fma_fp32", k_fma_fp32, 0, "FFMA chains (FP32 compute)"},
	{"fma_fp64", k_fma_fp64, 0, "DFMA chains (FP64 compute)"},
	{"daxpy", k_daxpy, 0, "y = a*x + y in double, 2^25 (DRAM)"},
	{"sfu_loop", k_sfu_loop, 0, "__sinf + __expf loop (MUFU)"},
	{"int_hash", k_int_hash, 0, "integer hash loop (IMAD, shifts)"},
	{"int_divmod", k_int_divmod, 0, "integer / and % loop"},
	{"smem_pingpong", k_smem_pingpong, 0, "shared-memory ping-pong with barriers"},
	{"spill_local_128", k_spill_local_128, 0, "float[128] in local memory, 2^24"},
	{"hadd2_f16", k_hadd2_f16, 0, "half2 add, 2^26 halves (DRAM)"},
	{"cublas_hgemm", k_cublas_hgemm, 1, "cuBLAS FP16 GEMM 2048 (tensor cores)"},
	{"cublas_dgemm", k_cublas_dgemm, 1, "cuBLAS FP64 GEMM 2048 (FP64 tensor cores)"},
};
#define NCORPUS (int)(sizeof(corpus) / sizeof(corpus[0]))

/* ---- modes ------------------------------------------------------------------------------------- */

static int selected(const char *only, const char *name)
{
	size_t n = strlen(name);
	if (!only)
		return 1;
	for (const char *p = strstr(only, name); p != NULL; p = strstr(p + n, name))
		if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
			return 1;
	return 0;
}

static int setup(struct kp_error *err)
{
	cudaError_t e;
	int dev = 0;
	cudaGetDevice(&dev);
	cudaDeviceGetAttribute(&B.sms, cudaDevAttrMultiProcessorCount, dev);
	/* 2^26 floats and halves, 2^25 doubles per buffer (2.3 GiB in all); GEMMs use the first 2048^2. */
	void **bufs[] = {(void **)&B.a, (void **)&B.b, (void **)&B.c, (void **)&B.ha, (void **)&B.hb, (void **)&B.hc,
			 (void **)&B.da, (void **)&B.db, (void **)&B.dc};
	const int types[] = {KP_ABI_F32, KP_ABI_F32, KP_ABI_F32, KP_ABI_F16, KP_ABI_F16, KP_ABI_F16, KP_ABI_F64, KP_ABI_F64, KP_ABI_F64};
	const size_t count[] = {N26, N26, N26, N26, N26, N26, N26 / 2, N26 / 2, N26 / 2};
	const size_t size[] = {4, 4, 4, 2, 2, 2, 8, 8, 8};
	if ((e = cudaMalloc(&B.o, 256)) != cudaSuccess)
		return kp_cuda_error(err, e, "cudaMalloc");
	for (int i = 0; i < 9; i++) {
		if ((e = cudaMalloc(bufs[i], count[i] * size[i])) != cudaSuccess)
			return kp_cuda_error(err, e, "cudaMalloc");
		if (kp_cuda_fill(*bufs[i], types[i], count[i], 0, -1, 1, 42 + (uint64_t)i, 0, err))
			return err->code;
	}
	if ((e = cudaDeviceSynchronize()) != cudaSuccess)
		return kp_cuda_error(err, e, "fill");
	return 0;
}

static void print_line(json_t *o)
{
	struct kp_buf b = KP_BUF_INIT;
	kp_json_dump_buf(o, &b, 1);
	printf("%s\n", b.buf);
	fflush(stdout);
	kp_buf_release(&b);
	json_decref(o);
}

static int measure(const char *only, int interleave, const struct kp_energy_opts *o0, double between_s,
		   struct kp_error *err)
{
	struct kp_energy_nvml *nvml = NULL;
	struct kp_energy_meter m;
	struct kp_energy_opts o = *o0;
	struct kp_cuda_workload cw[NCORPUS];
	struct kp_energy_workload w[16];
	struct kp_energy_measurement res[16];
	int idx[16], nsel = 0, rc;
	double idle = NAN, idle_after = NAN;

	memset(cw, 0, sizeof(cw));
	if ((rc = kp_cuda_open_meter(0, &nvml, &m, err)))
		return rc;
	if ((rc = setup(err)))
		goto out;
	/* One idle figure for the whole corpus, measured before anything runs, and one after. */
	m.sleep(m.ud, o.settle_s);
	if ((rc = kp_energy_idle_power(&m, o.idle_s > 0 ? o.idle_s : 2.0, o.align, &idle, err)))
		goto out;
	o.idle_s = 0;
	o.idle_power_w = idle;
	fprintf(stderr, "kp-energy-corpus: idle %.1f W on %s\n", idle, m.device);
	for (int i = 0; i < NCORPUS; i++) {
		const struct entry *e = &corpus[i];
		if (!selected(only, e->name))
			continue;
		if (e->needs_cublas && cublas_load()) {
			fprintf(stderr, "kp-energy-corpus: skipping %s: %s\n", e->name, cublas.why);
			continue;
		}
		if ((rc = kp_cuda_workload_init(&cw[i], e->name, e->launch, NULL, err)))
			goto out;
		if (!interleave) {
			if (between_s > 0)
				m.sleep(m.ud, between_s);
			if ((rc = kp_energy_measure(&m, &cw[i].w, &o, &res[0], err)))
				goto out;
			{
				json_t *line = json_object();
				kp_json_set(line, "index", json_integer(i));
				kp_json_set(line, "name", json_string(e->name));
				kp_json_set(line, "what", json_string(e->what));
				kp_json_set(line, "measurement", kp_energy_measurement_to_json(&res[0]));
				print_line(line);
			}
			fprintf(stderr, "kp-energy-corpus: %-20s %9.4f ms %10.4f mJ %7.1f W (spread %.1f%%)\n", e->name,
				res[0].time_s * 1e3, res[0].energy_j * 1e3, res[0].power_w, 100 * res[0].energy_spread);
		} else if (nsel < 16) {
			idx[nsel] = i;
			w[nsel++] = cw[i].w;
		}
	}
	if (interleave && nsel) {
		if ((rc = kp_energy_measure_many(&m, w, (size_t)nsel, &o, res, err)))
			goto out;
		for (int j = 0; j < nsel; j++) {
			json_t *line = json_object();
			kp_json_set(line, "index", json_integer(idx[j]));
			kp_json_set(line, "name", json_string(corpus[idx[j]].name));
			kp_json_set(line, "what", json_string(corpus[idx[j]].what));
			kp_json_set(line, "measurement", kp_energy_measurement_to_json(&res[j]));
			print_line(line);
		}
	}
	if (kp_energy_idle_power(&m, 2.0, o.align, &idle_after, err) == 0)
		fprintf(stderr, "kp-energy-corpus: idle %.1f W after the corpus (%.1f W before)\n", idle_after, idle);
	rc = 0;
out:
	for (int i = 0; i < NCORPUS; i++)
		if (cw[i].stream)
			kp_cuda_workload_release(&cw[i]);
	kp_energy_nvml_close(nvml);
	return rc;
}

static int profile(const char *only, struct kp_error *err)
{
	cudaError_t e;
	int rc;
	if ((e = cudaSetDevice(0)) != cudaSuccess)
		return kp_cuda_error(err, e, "CUDA device");
	if ((rc = setup(err)))
		return rc;
	/* Warm-up outside the profiled range (cuBLAS picks its kernels on the first call). */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			cudaProfilerStart();
		for (int i = 0; i < NCORPUS; i++) {
			const struct entry *en = &corpus[i];
			if (!selected(only, en->name) || (en->needs_cublas && cublas_load()))
				continue;
			if (pass == 1)
				kp_corpus_marker<<<i + 1, 1>>>((int *)B.o);
			if (en->launch(NULL, 0) != 0)
				return kp_error_set(err, KP_ECHILD, "%s: launch failed", en->name);
			if ((e = cudaDeviceSynchronize()) != cudaSuccess)
				return kp_cuda_error(err, e, en->name);
		}
	}
	cudaProfilerStop();
	return 0;
}

static void usage(FILE *fp)
{
	fprintf(fp, "usage: kp-energy-corpus list\n"
		    "       kp-energy-corpus measure [--only a,b] [--interleave] [--windows N] [--window-s S]\n"
		    "                                [--warmup-s S] [--idle-s S] [--between-s S] [--no-align]\n"
		    "       kp-energy-corpus profile [--only a,b]\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"only", required_argument, 0, 'o'},    {"interleave", no_argument, 0, 'I'},
		{"windows", required_argument, 0, 'w'}, {"window-s", required_argument, 0, 'W'},
		{"warmup-s", required_argument, 0, 'u'}, {"idle-s", required_argument, 0, 'i'},
		{"between-s", required_argument, 0, 'b'}, {"no-align", no_argument, 0, 'A'},
		{"help", no_argument, 0, 'h'},           {0, 0, 0, 0},
	};
	struct kp_energy_opts o;
	struct kp_error err = KP_ERROR_INIT;
	const char *only = NULL, *mode;
	int interleave = 0, c;
	double v, between = 0.3;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	mode = argv[1];
	kp_energy_opts_default(&o);
	o.windows = 3;
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case 'o': only = optarg; break;
		case 'I': interleave = 1; break;
		case 'w': bad = kp_cuda_parse_num(optarg, 1, KP_ENERGY_MAX_WINDOWS, &v); o.windows = (int)v; break;
		case 'W': bad = kp_cuda_parse_num(optarg, 0.01, 600, &o.window_s); break;
		case 'u': bad = kp_cuda_parse_num(optarg, 0, 600, &o.warmup_s); break;
		case 'i': bad = kp_cuda_parse_num(optarg, 0.1, 600, &o.idle_s); break;
		case 'b': bad = kp_cuda_parse_num(optarg, 0, 600, &between); break;
		case 'A': o.align = 0; break;
		case 'h': usage(stdout); return 0;
		default: bad = 1; break;
		}
		if (bad) {
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(mode, "list")) {
		for (int i = 0; i < NCORPUS; i++)
			printf("%-20s %s\n", corpus[i].name, corpus[i].what);
		return 0;
	}
	if (!strcmp(mode, "measure")) {
		if (measure(only, interleave, &o, between, &err)) {
			fprintf(stderr, "kp-energy-corpus: %s\n", kp_error_msg(&err));
			return err.code == KP_ENOTOOL || err.code == KP_ENODEV ? 3 : 1;
		}
		return 0;
	}
	if (!strcmp(mode, "profile")) {
		if (profile(only, &err)) {
			fprintf(stderr, "kp-energy-corpus: %s\n", kp_error_msg(&err));
			return 1;
		}
		return 0;
	}
	usage(stderr);
	return 2;
}
