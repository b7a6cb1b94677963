// Development corpus of issue 31: the two families the tools missed on model-written kernels, with
// controls, for tuning `tensor_cores` and `occupancy` (score the real-kernel corpus, bench/corpus-real,
// never tune against it). Half-precision and bf16 matrix work done without tensor cores (a GEMM on
// HFMA2, a GEMM and a direct convolution widened to FFMA), FMA work that is not a matrix product
// (a polynomial, a constant-weight stencil, row dot products without reuse), and kernels whose
// resident warps are limited by registers or shared memory while they wait on latency. Labels in
// labels.json were written before any GPU run. `./dev31 all` runs each kernel once in this file's
// order; `./dev31 list` names them.
#include "../corpus2/host.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// 0. Naive FP16 GEMM, two outputs per thread as a half2: per k, one broadcast load of A (LDG.U16),
//    one half2 load of B, one HFMA2 into a half2 accumulator; no tiling, no tensor cores.
//    Fix: wmma/mma.sync (or WGMMA) on tiles staged in shared memory.
__global__ void hgemm_naive_h2(const __half *a, const __half2 *b, __half2 *c, int m, int n, int k)
{
	int col2 = blockIdx.x * blockDim.x + threadIdx.x; // half2 column
	int row = blockIdx.y;
	if (col2 >= n / 2 || row >= m)
		return;
	__half2 acc = __float2half2_rn(0.0f);
	for (int kk = 0; kk < k; kk++)
		acc = __hfma2(__half2half2(a[(size_t)row * k + kk]), b[(size_t)kk * (n / 2) + col2], acc);
	c[(size_t)row * (n / 2) + col2] = acc;
}

// 1. Naive FP16-input GEMM with an FP32 accumulator, one output per thread (2-D blocks of 16x16):
//    each k converts two loaded halves and issues one FFMA. Fix: tensor cores (FP16 in, FP32 acc).
__global__ void hgemm_naive_f32acc(const __half *a, const __half *b, float *c, int m, int n, int k)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
	if (col >= n || row >= m)
		return;
	float acc = 0.0f;
	for (int kk = 0; kk < k; kk++)
		acc += __half2float(a[(size_t)row * k + kk]) * __half2float(b[(size_t)kk * n + col]);
	c[(size_t)row * n + col] = acc;
}

// 2. Direct 3x3 convolution, NCHW, bf16 activations and weights widened to float, one output per
//    thread looping over input channels and taps (an implicit GEMM with K = 9 C_in) from global
//    memory. Fix: implicit-GEMM on tensor cores (bf16 in, fp32 accumulate), or cuDNN.
__global__ void bf16_conv3x3_direct(const __nv_bfloat16 *x, const __nv_bfloat16 *w, float *y, int nimg, int cin,
				    int cout, int h, int wd)
{
	int ox = blockIdx.x * blockDim.x + threadIdx.x, oy = blockIdx.y;
	int co = blockIdx.z % cout, img = blockIdx.z / cout;
	if (ox >= wd || oy >= h || img >= nimg)
		return;
	float acc = 0.0f;
	for (int ci = 0; ci < cin; ci++) {
		const __nv_bfloat16 *xp = x + ((size_t)img * cin + ci) * h * wd;
		const __nv_bfloat16 *wp = w + ((size_t)co * cin + ci) * 9;
		for (int ky = 0; ky < 3; ky++) {
			int iy = oy + ky - 1;
			if (iy < 0 || iy >= h)
				continue;
			for (int kx = 0; kx < 3; kx++) {
				int ix = ox + kx - 1;
				if (ix >= 0 && ix < wd)
					acc += __bfloat162float(xp[iy * wd + ix]) * __bfloat162float(wp[ky * 3 + kx]);
			}
		}
	}
	y[(((size_t)img * cout + co) * h + oy) * wd + ox] = acc;
}

// 3. Not a matrix product: a degree-64 polynomial in half2 per element, Horner's rule with the
//    coefficients in registers (a dependent HFMA2 chain, no loads in the loop).
__global__ void h2_poly_chain(const __half2 *a, __half2 *c, int n2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n2)
		return;
	__half2 x = a[i], p = __float2half2_rn(0.5f);
#pragma unroll 8
	for (int j = 0; j < 64; j++)
		p = __hfma2(p, x, __float2half2_rn(0.001f * (float)(j + 1)));
	c[i] = p;
}

// 4. Not a matrix product: a 9-tap stencil on half2 with constant weights (the weights are
//    immediates, not loaded data): HFMA2s of loaded values and constants.
__global__ void h2_stencil_const(const __half2 *a, __half2 *c, int n2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < 4 || i >= n2 - 4)
		return;
	const float wt[9] = {0.05f, 0.1f, 0.1f, 0.15f, 0.2f, 0.15f, 0.1f, 0.1f, 0.05f};
	__half2 s = __float2half2_rn(0.0f);
#pragma unroll
	for (int t = 0; t < 9; t++)
		s = __hfma2(a[i + t - 4], __float2half2_rn(wt[t]), s);
	c[i] = s;
}

// 5. Not a matrix product worth tensor cores: each warp computes the dot product of row r of A with
//    row r of B (two loaded streams, accumulated), but every element is used once: ~0.5 FLOP per
//    byte. Coalesced half2 loads and a shuffle reduction: near the DRAM roof.
__global__ void h2_rowdot_warp(const __half2 *a, const __half2 *b, float *out, int rows, int cols2)
{
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
	if (warp >= rows)
		return;
	const __half2 *pa = a + (size_t)warp * cols2, *pb = b + (size_t)warp * cols2;
	float acc = 0.0f;
	for (int j = lane; j < cols2; j += 32) {
		float2 p = __half22float2(__hmul2(pa[j], pb[j]));
		acc += p.x + p.y;
	}
	for (int o = 16; o > 0; o >>= 1)
		acc += __shfl_down_sync(0xffffffffu, acc, o);
	if (lane == 0)
		out[warp] = acc;
}

// The register hogs below keep KEEP values loaded at the start live until the end (the compiler
// cannot sink the loads past the loop), so ptxas gives each thread KEEP + ~20 registers.
#define KEEP 88

// 6. Register-limited and latency-bound: each thread chases a random permutation in global memory
//    (512 dependent loads) while holding 88 values it needs only at the end: ~110 registers, 2
//    blocks of 256 per SM (16 of 64 warps). Fix: do not keep the values live (reload them after the
//    loop), or more independent chases per thread; then more warps hide the latency.
__global__ void regs_gather_chase(const float *keep_src, const int *perm, float *out, int steps)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	float keep[KEEP];
#pragma unroll
	for (int j = 0; j < KEEP; j++)
		keep[j] = keep_src[(size_t)j * gridDim.x * blockDim.x + t] * (float)(j + 1);
	int idx = (int)(((unsigned)t * 2654435761u) & ((1u << 24) - 1));
	for (int s = 0; s < steps; s++)
		idx = perm[idx];
	float sum = (float)idx;
#pragma unroll
	for (int j = 0; j < KEEP; j++)
		sum += keep[j] * keep[(j + 1) % KEEP];
	out[t] = sum;
}

// 7. Register-limited and latency-bound in shared memory: a dependent chase through a 4096-int
//    shared table (LDS latency on every step) with 176 values kept live: ~200 registers, one
//    256-thread block per SM (8 warps). Fix: fewer live registers (or __launch_bounds__ with a
//    register budget that does not spill), then 2-4x the warps overlap the chases.
#define KEEP2 176
__global__ void regs_smem_chase(const float *keep_src, const int *perm, float *out, int steps)
{
	__shared__ int tab[4096];
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	for (int j = threadIdx.x; j < 4096; j += blockDim.x)
		tab[j] = perm[j] & 4095;
	float keep[KEEP2];
#pragma unroll
	for (int j = 0; j < KEEP2; j++)
		keep[j] = keep_src[(size_t)j * gridDim.x * blockDim.x + t] * (float)(j + 1);
	__syncthreads();
	int idx = t & 4095;
	for (int s = 0; s < steps; s++)
		idx = tab[idx];
	float sum = (float)idx;
#pragma unroll
	for (int j = 0; j < KEEP2; j++)
		sum += keep[j] * keep[(j + 3) % KEEP2];
	out[t] = sum;
}

// 8. Shared-memory-limited and latency-bound: 128-thread blocks reserve 96 KB of dynamic shared
//    memory they barely use (2 blocks, 8 warps per SM), and each thread does 256 dependent random
//    gathers from global memory. Fix: drop the reservation (or size it to what is used).
__global__ void smem_limit_gather(const int *perm, float *out, int steps)
{
	extern __shared__ int scratch[];
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int idx = (int)(((unsigned)t * 40503u) & ((1u << 24) - 1));
	for (int s = 0; s < steps; s++)
		idx = perm[idx];
	scratch[threadIdx.x] = idx;
	__syncthreads();
	out[t] = (float)scratch[(threadIdx.x + 1) % blockDim.x];
}

// 9. Control: a register hog that streams at the DRAM roof anyway (float4 copy-and-scale, four
//    loads in flight per thread, 88 values kept live): more warps would not help.
__global__ void regs_stream_f4(const float *keep_src, const float4 *x, float4 *y, int n4)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
	float keep[KEEP];
#pragma unroll
	for (int j = 0; j < KEEP; j++)
		keep[j] = keep_src[(size_t)j * stride + t];
	for (int i = t; i + 3 * stride < n4; i += 4 * stride) {
		float4 v0 = x[i], v1 = x[i + stride], v2 = x[i + 2 * stride], v3 = x[i + 3 * stride];
		v0.x *= 2.0f, v1.x *= 2.0f, v2.x *= 2.0f, v3.x *= 2.0f;
		y[i] = v0, y[i + stride] = v1, y[i + 2 * stride] = v2, y[i + 3 * stride] = v3;
	}
	float sum = 0.0f;
#pragma unroll
	for (int j = 0; j < KEEP; j++)
		sum += keep[j] * keep[(j + 5) % KEEP];
	if (sum == 12345.0f)
		y[0].y = sum; // keeps the values live; never true for the data used
}

static __half *dev_halves(size_t n, unsigned seed)
{
	float *f = dev_floats(n, seed, -1.0f, 1.0f), *h = (float *)malloc(n * sizeof(float));
	__half *hh = (__half *)malloc(n * sizeof(__half)), *d;
	if (!h || !hh) {
		fprintf(stderr, "out of host memory\n");
		exit(1);
	}
	CK(cudaMemcpy(h, f, n * sizeof(float), cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++)
		hh[i] = __float2half(h[i]);
	CK(cudaMalloc(&d, n * sizeof(__half)));
	CK(cudaMemcpy(d, hh, n * sizeof(__half), cudaMemcpyHostToDevice));
	CK(cudaFree(f));
	free(h);
	free(hh);
	return d;
}

// A random cyclic permutation of 2^24 ints (Sattolo's algorithm): every chase step is a miss.
static int *dev_perm(unsigned seed)
{
	const int n = 1 << 24;
	int *h = (int *)malloc((size_t)n * sizeof(int)), *d;
	unsigned s = seed * 2654435761u + 7u;
	if (!h) {
		fprintf(stderr, "out of host memory\n");
		exit(1);
	}
	for (int i = 0; i < n; i++)
		h[i] = i;
	for (int i = n - 1; i > 0; i--) {
		s = s * 1664525u + 1013904223u;
		int j = (int)(s % (unsigned)i), tmp = h[i];
		h[i] = h[j];
		h[j] = tmp;
	}
	CK(cudaMalloc(&d, (size_t)n * sizeof(int)));
	CK(cudaMemcpy(d, h, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
	free(h);
	return d;
}

int main(int argc, char **argv)
{
	struct corpus_run r = {argc > 1 ? argv[1] : "all", argc > 1 && !strcmp(argv[1], "list"), 0};
	const int n = 1 << 24, B = 256;
	const int G = 132 * 8; // blocks of the register hogs: several waves at their occupancy
	__half *ha = NULL, *hb = NULL;
	__nv_bfloat16 *bx = NULL, *bw = NULL;
	float *keep = NULL, *big = NULL, *out = NULL;
	int *perm = NULL;
	if (!r.list) {
		ha = dev_halves((size_t)2048 * 2048, 21);
		hb = dev_halves((size_t)2048 * 2048, 22);
		bx = (__nv_bfloat16 *)dev_halves((size_t)16 * 64 * 56 * 56, 23); // bit patterns of halves: finite bf16 values
		bw = (__nv_bfloat16 *)dev_halves((size_t)64 * 64 * 9, 24);
		keep = dev_floats((size_t)KEEP2 * G * B, 25, -1.0f, 1.0f);
		big = dev_floats((size_t)4 * n, 26, -1.0f, 1.0f); // 256 MB
		out = (float *)dev_zeros((size_t)4 * n * sizeof(float));
		perm = dev_perm(27);
		CK(cudaFuncSetAttribute(smem_limit_gather, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
	}
	RUN(r, "hgemm_naive_h2",
	    hgemm_naive_h2<<<dim3(1024 / 128, 2048), 128>>>(ha, (const __half2 *)hb, (__half2 *)out, 2048, 2048, 2048));
	RUN(r, "hgemm_naive_f32acc", hgemm_naive_f32acc<<<dim3(2048 / 16, 2048 / 16), dim3(16, 16)>>>(ha, hb, out, 2048, 2048, 2048));
	RUN(r, "bf16_conv3x3_direct",
	    bf16_conv3x3_direct<<<dim3(1, 56, 16 * 64), 64>>>(bx, bw, out, 16, 64, 64, 56, 56));
	RUN(r, "h2_poly_chain", h2_poly_chain<<<(n / 2) / B, B>>>((const __half2 *)big, (__half2 *)out, n / 2));
	RUN(r, "h2_stencil_const", h2_stencil_const<<<n / B, B>>>((const __half2 *)big, (__half2 *)out, n));
	RUN(r, "h2_rowdot_warp",
	    h2_rowdot_warp<<<(16384 * 32) / B, B>>>((const __half2 *)big, (const __half2 *)(big + n), out, 16384, 1024));
	RUN(r, "regs_gather_chase", regs_gather_chase<<<G, B>>>(keep, perm, out, 512));
	RUN(r, "regs_smem_chase", regs_smem_chase<<<G, B>>>(keep, perm, out, 4096));
	RUN(r, "smem_limit_gather", smem_limit_gather<<<132 * 16, 128, 96 * 1024>>>(perm, out, 256));
	RUN(r, "regs_stream_f4", regs_stream_f4<<<G, B>>>(keep, (const float4 *)big, (float4 *)(big + 2 * n), n / 2));
	return corpus_finish(&r);
}
