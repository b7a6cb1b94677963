// Held-out labelled corpus (issue 19): each kernel plants one bottleneck; labels.json says which
// class and tool an expert would name. Labels were committed before any GPU run and are never tuned
// against. Built and profiled by bench/gpu-capture-corpus2.sh: `./heldout all` runs each kernel once
// in this file's order (the labels' ids); `./heldout list` prints the names.
#include <cuda_bf16.h>
#include <stdint.h>

#include "host.h"

// 0. Integer division and modulo in the index math of a broadcast elementwise op: every element
//    splits its flat index into six coordinates by run-time sizes (signed int / and %), then
//    re-linearizes two broadcast operands. ~8 bytes of DRAM per element against >100 integer
//    instructions: the SM's issue slots, not DRAM, bound it. Fix: precomputed magic-number dividers
//    (or power-of-two / compile-time shapes), or iterate over the inner dimension.
__global__ void gather_bcast_divmod(const float *a, const float *b, const float *c, float *out, int n, int d1, int d2,
				    int d3, int d4, int d5)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int r = i;
	int i5 = r % d5;
	r /= d5;
	int i4 = r % d4;
	r /= d4;
	int i3 = r % d3;
	r /= d3;
	int i2 = r % d2;
	r /= d2;
	int i1 = r % d1;
	int i0 = r / d1;
	int jb = (i0 * d2 + i2) * d4 + i4; // b broadcasts over dims 1, 3, 5
	int jc = (i1 * d3 + i3) * d5 + i5; // c broadcasts over dims 0, 2, 4
	out[i] = a[i] * b[jb] + c[jc];
}

// 1. 64-bit modulo by run-time primes (a hash table's bucket and probe slot): each is a ~70
//    instruction software sequence; 12 bytes of DRAM per key. Fix: 32-bit hashes, power-of-two
//    table sizes with masks, or a precomputed fast-modulo (Lemire) multiplier.
__global__ void hash_mod_u64(const unsigned long long *keys, uint2 *out, int n, unsigned long long p1,
			     unsigned long long p2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	unsigned long long h = keys[i] * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
	out[i] = make_uint2((unsigned)(h % p1), (unsigned)((h >> 17) % p2));
}

// 2. A chain of special functions per element (__sinf, __expf, __logf: one MUFU each, 16 lanes per
//    SM per cycle against 128 for FP32): the XU pipe is saturated long before DRAM. Fix: fewer
//    transcendentals (polynomials on the FMA pipe, algebraic simplification).
__global__ void mufu_chain(const float *a, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float x = a[i];
	for (int j = 0; j < 32; j++)
		x = 0.9f * __sinf(x) + 0.5f * __expf(-x * x) - 0.1f * __logf(1.0f + x * x);
	c[i] = x;
}

// 3. Shared-memory bank conflicts in a loop: each lane walks its own row of a 32x32 tile, so the 32
//    lanes of a warp hit one bank (32-way). The column index depends on the running sum, so the
//    compiler cannot keep the row in registers. DRAM traffic is a few KB per block. Fix: pad the
//    tile to [32][33] or swizzle the column.
__global__ void smem_column_conflict(const float *a, float *c, int iters)
{
	__shared__ float tile[32][32];
	const float *src = a + (size_t)blockIdx.x * 1024;
	for (int k = threadIdx.x; k < 1024; k += blockDim.x)
		tile[k >> 5][k & 31] = src[k];
	__syncthreads();
	int lane = threadIdx.x & 31;
	float acc = (float)(threadIdx.x >> 5);
	for (int k = 0; k < iters; k++) {
		int col = (k + __float_as_int(acc)) & 31;
		acc = fmaf(tile[lane][col], 0.999f, acc);
	}
	c[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 4. A 65-tap 1-D stencil read from shared memory without conflicts: one LDS per FFMA, and shared
//    memory delivers one warp-wide 32-bit load per SM per cycle against four warp-wide FFMAs, so
//    the shared-memory pipe is the bottleneck (DRAM moves 8 bytes per 130 FLOPs). Fix: register
//    blocking (each thread computes several outputs from a sliding window in registers).
#define ST_R 32
#define ST_B 256
__constant__ float st_w[2 * ST_R + 1];
__global__ void smem_stencil_1d(const float *a, float *c, int n)
{
	__shared__ float s[ST_B + 2 * ST_R];
	int i = blockIdx.x * ST_B + threadIdx.x;
	for (int k = threadIdx.x; k < ST_B + 2 * ST_R; k += ST_B) {
		int g = blockIdx.x * ST_B + k - ST_R;
		s[k] = (g >= 0 && g < n) ? a[g] : 0.0f;
	}
	__syncthreads();
	float acc = 0.0f;
#pragma unroll
	for (int k = 0; k <= 2 * ST_R; k++)
		acc = fmaf(st_w[k], s[threadIdx.x + k], acc);
	if (i < n)
		c[i] = acc;
}

// 5. Too few threads in flight: a streaming scale with one 32-thread block per SM (2% of the warps
//    an SM can hold), so a handful of loads are in flight per SM and DRAM idles. Fix: a grid of
//    enough blocks (several per SM, hundreds of threads each).
__global__ void few_warps_stream(const float *a, float *c, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		c[i] = a[i] * 1.5f;
}

// 6. A row-per-thread loop: one thread sums a whole 8192-float row, 2048 rows, so 2048 threads
//    (16 blocks of 128) cover the GPU and each runs a serial loop. Fix: a warp (or block) per row
//    with a shuffle reduction.
__global__ void row_per_thread_sum(const float *a, float *out, int rows, int cols)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *p = a + (size_t)r * cols;
	float s = 0.0f;
	for (int j = 0; j < cols; j++)
		s += p[j];
	out[r] = s;
}

// 7. A bank of 16th-order IIR filters (direct form II transposed), one filter per thread, all over
//    one input signal staged in shared memory; each thread keeps its 16 states and 33 coefficients
//    in registers and accumulates the output energy. A register-heavy chain of dependent FMAs that
//    is NOT a matrix product (each filter has its own recurrence; no operand is shared the way a
//    GEMM shares rows and columns): FMA-bound near the FP32 roof; tensor cores do not apply.
#define IIR_ORDER 16
#define IIR_T 2048
__global__ void __launch_bounds__(256) iir_filter_bank(const float *coef, const float *x, float *energy, int nfilt)
{
	__shared__ float sx[IIR_T];
	for (int t = threadIdx.x; t < IIR_T; t += blockDim.x)
		sx[t] = x[t];
	__syncthreads();
	int f = blockIdx.x * blockDim.x + threadIdx.x;
	if (f >= nfilt)
		return;
	float bq[IIR_ORDER + 1], aq[IIR_ORDER + 1], st[IIR_ORDER];
#pragma unroll
	for (int k = 0; k <= IIR_ORDER; k++) {
		bq[k] = coef[(size_t)k * nfilt + f];
		aq[k] = coef[(size_t)(IIR_ORDER + 1 + k) * nfilt + f];
	}
#pragma unroll
	for (int k = 0; k < IIR_ORDER; k++)
		st[k] = 0.0f;
	float e = 0.0f;
	for (int t = 0; t < IIR_T; t++) {
		float xt = sx[t];
		float y = fmaf(bq[0], xt, st[0]);
#pragma unroll
		for (int k = 0; k < IIR_ORDER - 1; k++)
			st[k] = fmaf(-aq[k + 1], y, fmaf(bq[k + 1], xt, st[k + 1]));
		st[IIR_ORDER - 1] = fmaf(-aq[IIR_ORDER], y, bq[IIR_ORDER] * xt);
		e = fmaf(y, y, e);
	}
	energy[f] = e;
}

// 8. A real small GEMM (2048 x 2048 x 512, bf16 inputs, fp32 accumulate) written as a classic
//    shared-memory tiled SIMT kernel: 64x64 block tiles, 4x4 outputs per thread, bf16 widened to
//    float and multiplied on FFMA. Hopper's bf16 tensor cores (wgmma) run this an order of
//    magnitude faster.
#define GT 64
#define GK 16
__global__ void __launch_bounds__(256) gemm_bf16_simt(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int M,
						      int N, int K)
{
	__shared__ float As[GK][GT + 4], Bs[GK][GT + 4];
	int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
	int row0 = blockIdx.y * GT, col0 = blockIdx.x * GT;
	float acc[4][4] = {};
	for (int k0 = 0; k0 < K; k0 += GK) {
		for (int e = threadIdx.x; e < GT * GK; e += 256) {
			int r = e / GK, k = e % GK; // A tile: 64 rows x 16 k
			As[k][r] = __bfloat162float(A[(size_t)(row0 + r) * K + k0 + k]);
			int kk = e / GT, cc = e % GT; // B tile: 16 k x 64 cols
			Bs[kk][cc] = __bfloat162float(B[(size_t)(k0 + kk) * N + col0 + cc]);
		}
		__syncthreads();
#pragma unroll
		for (int k = 0; k < GK; k++) {
			float av[4], bv[4];
#pragma unroll
			for (int u = 0; u < 4; u++) {
				av[u] = As[k][ty * 4 + u];
				bv[u] = Bs[k][tx * 4 + u];
			}
#pragma unroll
			for (int u = 0; u < 4; u++)
#pragma unroll
				for (int v = 0; v < 4; v++)
					acc[u][v] = fmaf(av[u], bv[v], acc[u][v]);
		}
		__syncthreads();
	}
#pragma unroll
	for (int u = 0; u < 4; u++)
#pragma unroll
		for (int v = 0; v < 4; v++)
			C[(size_t)(row0 + ty * 4 + u) * N + col0 + tx * 4 + v] = acc[u][v];
}

// 9. Array of structs: a position update touches 8 bytes of each 64-byte particle, so every
//    32-byte sector read and written carries mostly bytes nobody asked for. Fix: structure of
//    arrays (x[] and vx[] contiguous).
struct particle {
	float x, y, z, vx, vy, vz, m, q, pad[8];
};
__global__ void aos_field_update(particle *p, int n, float dt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i].x += p[i].vx * dt;
}

// 10. Near the memory roof: y = a*x + b*y with 128-bit loads and stores over 2 x 128 MB.
__global__ void axpby_f4(const float4 *x, float4 *y, int n4, float a, float b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4) {
		float4 u = x[i], v = y[i];
		y[i] = make_float4(a * u.x + b * v.x, a * u.y + b * v.y, a * u.z + b * v.z, a * u.w + b * v.w);
	}
}

// 11. Near the memory roof: row sums with a warp per row, 128-bit loads and a shuffle reduction
//     (the right way to write kernel 6).
__global__ void rowsum_warp_f4(const float4 *a, float *out, int rows, int cols4)
{
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
	if (warp >= rows)
		return;
	const float4 *p = a + (size_t)warp * cols4;
	float s = 0.0f;
	for (int j = lane; j < cols4; j += 32) {
		float4 v = p[j];
		s += (v.x + v.y) + (v.z + v.w);
	}
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_down_sync(0xffffffffu, s, o);
	if (lane == 0)
		out[warp] = s;
}

// 12. At the ridge point: 58 dependent FMAs per float on a float4 stream, ~14.5 FLOP per DRAM byte
//     (the H200's ridge is ~14-15), with both DRAM and the FMA pipe busy: a mixed kernel, near
//     both roofs.
#define RIDGE_K 58
__global__ void ridge_mixed(const float4 *a, float4 *c, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n4)
		return;
	float4 v = a[i];
#pragma unroll
	for (int k = 0; k < RIDGE_K; k++) {
		v.x = fmaf(v.x, 0.999f, 0.001f);
		v.y = fmaf(v.y, 0.999f, 0.002f);
		v.z = fmaf(v.z, 0.999f, 0.003f);
		v.w = fmaf(v.w, 0.999f, 0.004f);
	}
	c[i] = v;
}

// 13. Rotations driven by sine and cosine (__sincosf: MUFU.SIN and MUFU.COS per step, 32 steps
//     per element): the special-function pipe is saturated. Fix: angle-addition recurrences on
//     the FMA pipe, or fewer evaluations.
__global__ void mufu_sincos_rotate(const float *theta, float2 *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float t = theta[i], px = 1.0f, py = 0.0f;
	for (int j = 0; j < 32; j++) {
		float s, c;
		__sincosf(t * (float)(j + 1) + px, &s, &c);
		float nx = px * c - py * s, ny = px * s + py * c;
		px = nx;
		py = ny;
	}
	out[i] = make_float2(px, py);
}

// 14. A 7-point stencil on a periodic 3-D grid whose coordinates and wrapped neighbours come from
//     run-time '/' and '%' (two divisions to split the index, six modulos to wrap): the integer
//     pipes and issue slots are the busy side; the neighbour loads mostly hit L1/L2. Fix: iterate
//     x inside a thread with explicit wrap tests, or magic-number division.
__global__ void periodic_stencil_divmod(const float *u, float *v, int nx, int ny, int nz)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int n = nx * ny * nz;
	if (i >= n)
		return;
	int x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
	int xp = (x + 1) % nx, xm = (x + nx - 1) % nx;
	int yp = (y + 1) % ny, ym = (y + ny - 1) % ny;
	int zp = (z + 1) % nz, zm = (z + nz - 1) % nz;
	int row = nx * (y + ny * z);
	float s = u[xp + row] + u[xm + row] + u[x + nx * (yp + ny * z)] + u[x + nx * (ym + ny * z)] +
		  u[x + nx * (y + ny * zp)] + u[x + nx * (y + ny * zm)];
	v[i] = 0.5f * u[i] + (1.0f / 12.0f) * s;
}

int main(int argc, char **argv)
{
	struct corpus_run r = {argc > 1 ? argv[1] : "all", argc > 1 && !strcmp(argv[1], "list"), 0};
	const int n = 1 << 24, B = 256, G = n / B;
	float *a = NULL, *b = NULL, *c = NULL, *big = NULL, *out = NULL;
	if (!r.list) {
		a = dev_floats(n, 1, -1.0f, 1.0f);
		b = dev_floats(n, 2, -1.0f, 1.0f);
		c = dev_floats(n, 3, -1.0f, 1.0f);
		big = dev_floats((size_t)4 * n, 4, -1.0f, 1.0f); // 256 MB
		out = (float *)dev_zeros((size_t)4 * n * sizeof(float));
	}
	// 32 x 8 x 16 x 8 x 32 x 64 = 2^24 elements; b and c are the small broadcast operands.
	RUN(r, "gather_bcast_divmod", gather_bcast_divmod<<<G, B>>>(a, b, c, out, n, 8, 16, 8, 32, 64));
	RUN(r, "hash_mod_u64",
	    hash_mod_u64<<<(n / 2) / B, B>>>((const unsigned long long *)big, (uint2 *)out, n / 2, 1000003ull,
					       998244353ull));
	RUN(r, "mufu_chain", mufu_chain<<<G, B>>>(a, c, n));
	RUN(r, "smem_column_conflict", smem_column_conflict<<<132 * 16, B>>>(a, c, 256));
	RUN(r, "smem_stencil_1d", {
		float w[2 * ST_R + 1];
		for (int k = 0; k <= 2 * ST_R; k++)
			w[k] = 1.0f / (1.0f + (float)((k - ST_R) * (k - ST_R)));
		CK(cudaMemcpyToSymbol(st_w, w, sizeof(w)));
		smem_stencil_1d<<<n / ST_B, ST_B>>>(a, c, n);
	});
	RUN(r, "few_warps_stream", few_warps_stream<<<132, 32>>>(a, c, n / 2));
	RUN(r, "row_per_thread_sum", row_per_thread_sum<<<2048 / 128, 128>>>(big, out, 2048, 8192));
	RUN(r, "iir_filter_bank", {
		const int nfilt = 132 * 1024;
		// Coefficients: b in [-0.05, 0.05], a small enough that the filters stay stable.
		float *coef = r.list ? NULL : dev_floats((size_t)2 * (IIR_ORDER + 1) * nfilt, 5, -0.05f, 0.05f);
		iir_filter_bank<<<nfilt / 256, 256>>>(coef, a, out, nfilt);
		CK(cudaDeviceSynchronize());
		CK(cudaFree(coef));
	});
	RUN(r, "gemm_bf16_simt", {
		// bf16 operands reuse the float buffers' bytes (arbitrary bit patterns; FFMA timing does
		// not depend on the values).
		const int M = 2048, N = 2048, K = 512;
		gemm_bf16_simt<<<dim3(N / GT, M / GT), 256>>>((const __nv_bfloat16 *)a, (const __nv_bfloat16 *)b, out,
							       M, N, K);
	});
	RUN(r, "aos_field_update", aos_field_update<<<(1 << 21) / B, B>>>((particle *)big, 1 << 21, 1e-3f));
	RUN(r, "axpby_f4", axpby_f4<<<(n / 4 * 2) / B, B>>>((const float4 *)big, (float4 *)(big + 2 * n), n / 2, 0.5f, 0.25f));
	RUN(r, "rowsum_warp_f4", rowsum_warp_f4<<<16384 * 32 / B, B>>>((const float4 *)big, out, 16384, 4096 / 4));
	RUN(r, "ridge_mixed", ridge_mixed<<<(n / 4 * 2) / B, B>>>((const float4 *)big, (float4 *)(big + 2 * n), n / 2));
	RUN(r, "mufu_sincos_rotate", mufu_sincos_rotate<<<G, B>>>(a, (float2 *)out, n));
	RUN(r, "periodic_stencil_divmod", periodic_stencil_divmod<<<G, B>>>(a, c, 256, 256, 256));
	return corpus_finish(&r);
}
