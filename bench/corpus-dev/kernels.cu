// Development corpus (issue 19): the same families as the held-out corpus (bench/corpus2) with
// different kernels, for tuning the classifier and the tools. Labels in labels.json were written
// before any GPU run. `./dev all` runs each kernel once in this file's order; `./dev list` names them.
#include "../corpus2/host.h"

// 0. im2col for a 3x3 convolution: every output element recovers (channel, tap, image, row, column)
//    from its flat index with run-time '/' and '%'. The data moved per element is ~4.5 bytes (the
//    input is re-read through L1/L2); the index math is the work. Fix: one thread per input pixel
//    looping over taps and channels, or magic-number division.
__global__ void im2col_divmod(const float *x, float *col, int n, int c, int h, int w)
{
	long long total = (long long)c * 9 * n * h * w;
	long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= total)
		return;
	int plane = n * h * w;
	int p = (int)(o % plane), ck = (int)(o / plane);
	int ch = ck / 9, kk = ck % 9;
	int img = p / (h * w), hw = p % (h * w);
	int y = hw / w + kk / 3 - 1, xx = hw % w + kk % 3 - 1;
	col[o] = (y >= 0 && y < h && xx >= 0 && xx < w) ? x[(((size_t)img * c + ch) * h + y) * w + xx] : 0.0f;
}

// 1. Powers and reciprocals in a loop (__powf is MUFU.LG2 + MUFU.EX2, __fdividef a MUFU.RCP): the
//    special-function pipe is saturated.
__global__ void mufu_pow_chain(const float *a, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float x = a[i];
	for (int j = 0; j < 24; j++)
		x = __fdividef(__powf(fabsf(x) + 0.5f, 0.75f), 1.0f + x * x);
	c[i] = x;
}

// 2. A 16-way bank conflict: lanes read a 1024-float shared array at a stride of 16 words (two
//    banks for 32 lanes), in a loop whose index depends on the running value. Fix: pad or swizzle.
__global__ void smem_stride_conflict(const float *a, float *c, int iters)
{
	__shared__ float s[1024];
	for (int k = threadIdx.x; k < 1024; k += blockDim.x)
		s[k] = a[(size_t)blockIdx.x * 1024 + k];
	__syncthreads();
	int lane = threadIdx.x & 31;
	float acc = (float)(threadIdx.x >> 5);
	for (int k = 0; k < iters; k++) {
		int idx = (lane * 16 + ((k + __float_as_int(acc)) & 15)) & 1023;
		acc = fmaf(s[idx], 0.999f, acc);
	}
	c[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 3. A 7x7 box filter over a 4096x4096 image from a shared-memory tile, conflict-free (a warp reads
//    one row segment): 49 LDS per output against 49 FFMA and 8 bytes of DRAM, so the shared-memory
//    pipe limits it. Fix: register blocking (several outputs per thread from a sliding window).
#define BX 32
#define BY 8
__global__ void smem_stencil_2d(const float *in, float *out, int w, int h)
{
	__shared__ float t[BY + 6][BX + 6];
	int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
	for (int k = threadIdx.y * BX + threadIdx.x; k < (BY + 6) * (BX + 6); k += BX * BY) {
		int ty = k / (BX + 6), tx = k % (BX + 6);
		int gx = x0 + tx - 3, gy = y0 + ty - 3;
		t[ty][tx] = (gx >= 0 && gx < w && gy >= 0 && gy < h) ? in[(size_t)gy * w + gx] : 0.0f;
	}
	__syncthreads();
	float s = 0.0f;
#pragma unroll
	for (int dy = 0; dy < 7; dy++)
#pragma unroll
		for (int dx = 0; dx < 7; dx++)
			s = fmaf(1.0f / 49.0f, t[threadIdx.y + dy][threadIdx.x + dx], s);
	out[(size_t)(y0 + threadIdx.y) * w + x0 + threadIdx.x] = s;
}

// 4. Too few threads in flight: a grid-stride sum with 33 blocks of 256 threads (a quarter of the
//    SMs get one block). Fix: a grid sized to the GPU.
__global__ void few_blocks_reduce(const float *a, float *out, int n)
{
	__shared__ float part[256];
	float s = 0.0f;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		s += a[i];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int o = 128; o > 0; o >>= 1) {
		if (threadIdx.x < o)
			part[threadIdx.x] += part[threadIdx.x + o];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(out, part[0]);
}

// 5. Row-per-thread sparse matrix-vector product (CSR scalar): 8192 rows of 512 non-zeros, one thread
//    per row, so 8192 threads walk long serial loops. Fix: a warp per row (CSR vector).
__global__ void spmv_csr_scalar(const int *rowptr, const int *colidx, const float *val, const float *x, float *y,
				int rows)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	float s = 0.0f;
	for (int j = rowptr[r]; j < rowptr[r + 1]; j++)
		s = fmaf(val[j], x[colidx[j]], s);
	y[r] = s;
}

// 6. Horner evaluation of one degree-255 polynomial (coefficients in shared memory) at 8 points per
//    thread: 8 dependent FMA chains sharing each loaded coefficient. A Vandermonde-times-vector
//    product at best, not a matrix product: FMA-bound near the FP32 roof, no tensor-core case.
#define HDEG 256
__global__ void horner_bank(const float *coef, const float *xs, float *ys, int npts)
{
	__shared__ float cs[HDEG];
	for (int k = threadIdx.x; k < HDEG; k += blockDim.x)
		cs[k] = coef[k];
	__syncthreads();
	int base = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
	if (base >= npts)
		return;
	float x[8], acc[8];
#pragma unroll
	for (int j = 0; j < 8; j++) {
		x[j] = xs[base + j];
		acc[j] = 0.0f;
	}
	for (int k = HDEG - 1; k >= 0; k--) {
		float ck = cs[k];
#pragma unroll
		for (int j = 0; j < 8; j++)
			acc[j] = fmaf(acc[j], x[j], ck);
	}
#pragma unroll
	for (int j = 0; j < 8; j++)
		ys[base + j] = acc[j];
}

// 7. A batch of 128 FP32 GEMMs of 256x256x256, shared-memory tiled (32x32 tiles, 2x2 outputs per
//    thread) on FFMA: matrix products that belong on tensor cores (TF32 / bf16 wgmma).
#define BT 32
__global__ void bmm_fp32_smem(const float *A, const float *B, float *C, int n)
{
	__shared__ float As[BT][BT + 1], Bs[BT][BT + 1];
	size_t off = (size_t)blockIdx.z * n * n;
	int tx = threadIdx.x, ty = threadIdx.y; // 16 x 16 threads, 2 x 2 outputs each
	int r0 = blockIdx.y * BT, c0 = blockIdx.x * BT;
	float acc[2][2] = {};
	for (int k0 = 0; k0 < n; k0 += BT) {
		for (int e = ty * 16 + tx; e < BT * BT; e += 256) {
			int r = e / BT, k = e % BT;
			As[r][k] = A[off + (size_t)(r0 + r) * n + k0 + k];
			Bs[r][k] = B[off + (size_t)(k0 + r) * n + c0 + k];
		}
		__syncthreads();
#pragma unroll 8
		for (int k = 0; k < BT; k++) {
			float a0 = As[ty * 2][k], a1 = As[ty * 2 + 1][k], b0 = Bs[k][tx * 2], b1 = Bs[k][tx * 2 + 1];
			acc[0][0] = fmaf(a0, b0, acc[0][0]);
			acc[0][1] = fmaf(a0, b1, acc[0][1]);
			acc[1][0] = fmaf(a1, b0, acc[1][0]);
			acc[1][1] = fmaf(a1, b1, acc[1][1]);
		}
		__syncthreads();
	}
	for (int u = 0; u < 2; u++)
		for (int v = 0; v < 2; v++)
			C[off + (size_t)(r0 + ty * 2 + u) * n + c0 + tx * 2 + v] = acc[u][v];
}

// 8. Near the memory roof: a scaled copy with 128-bit loads and stores (128 MB each way).
__global__ void copy_scale_f4(const float4 *a, float4 *c, int n4, float s)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4) {
		float4 v = a[i];
		c[i] = make_float4(s * v.x, s * v.y, s * v.z, s * v.w);
	}
}

// 9. Near the FP32 roof: eight independent FMA chains per thread in registers, no memory in the
//    loop. Not a matrix product.
__global__ void fma_ilp_regs(const float *a, float *c, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v[8];
#pragma unroll
	for (int j = 0; j < 8; j++)
		v[j] = a[i] + (float)j;
	for (int k = 0; k < iters; k++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			v[j] = fmaf(v[j], 0.9999f, 0.0001f * (float)(j + 1));
	float s = 0.0f;
#pragma unroll
	for (int j = 0; j < 8; j++)
		s += v[j];
	c[i] = s;
}

// 10. Array of 48-byte structs of which the kernel reads two adjacent fields: most of every sector
//     fetched is wasted. Fix: structure of arrays.
struct rec {
	float a, b, pad[10];
};
__global__ void aos_read_stride48(const rec *r, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = r[i].a * r[i].b;
}

// 11. At the ridge point: two float2 streams in, one out, 43 dependent FMAs per input float
//     (~14.3 FLOP per DRAM byte): DRAM and the FMA pipe both busy.
#define RIDGE2_K 43
__global__ void ridge_mixed_f2(const float2 *a, const float2 *b, float2 *c, int n2)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n2)
		return;
	float2 u = a[i], v = b[i];
#pragma unroll
	for (int k = 0; k < RIDGE2_K; k++) {
		u.x = fmaf(u.x, 0.999f, 0.001f);
		u.y = fmaf(u.y, 0.999f, 0.002f);
		v.x = fmaf(v.x, 0.998f, 0.003f);
		v.y = fmaf(v.y, 0.998f, 0.004f);
	}
	c[i] = make_float2(u.x + v.x, u.y + v.y);
}

int main(int argc, char **argv)
{
	struct corpus_run r = {argc > 1 ? argv[1] : "all", argc > 1 && !strcmp(argv[1], "list"), 0};
	const int n = 1 << 24, B = 256, G = n / B;
	float *a = NULL, *b = NULL, *big = NULL, *out = NULL;
	if (!r.list) {
		a = dev_floats(n, 11, -1.0f, 1.0f);
		b = dev_floats(n, 12, -1.0f, 1.0f);
		big = dev_floats((size_t)4 * n, 13, -1.0f, 1.0f); // 256 MB
		out = (float *)dev_zeros((size_t)8 * n * sizeof(float));
	}
	RUN(r, "im2col_divmod", {
		const int N = 16, C = 64, H = 56, W = 56; // 28.9M outputs, 116 MB
		long long total = (long long)C * 9 * N * H * W;
		im2col_divmod<<<(unsigned)((total + B - 1) / B), B>>>(a, out, N, C, H, W);
	});
	RUN(r, "mufu_pow_chain", mufu_pow_chain<<<G, B>>>(a, b, n));
	RUN(r, "smem_stride_conflict", smem_stride_conflict<<<132 * 16, B>>>(a, b, 256));
	RUN(r, "smem_stencil_2d", smem_stencil_2d<<<dim3(4096 / BX, 4096 / BY), dim3(BX, BY)>>>(a, b, 4096, 4096));
	RUN(r, "few_blocks_reduce", few_blocks_reduce<<<33, 256>>>(a, out, n / 2));
	RUN(r, "spmv_csr_scalar", {
		const int rows = 8192, per = 512, cols = 65536;
		int *rowptr = NULL, *colidx = NULL;
		if (!r.list) {
			int *hp = (int *)malloc((rows + 1) * sizeof(int)), *hc = (int *)malloc((size_t)rows * per * sizeof(int));
			if (!hp || !hc) {
				fprintf(stderr, "out of host memory\n");
				exit(1);
			}
			for (int i = 0; i <= rows; i++)
				hp[i] = i * per;
			for (size_t j = 0; j < (size_t)rows * per; j++)
				hc[j] = (int)((j * 2654435761u) % cols);
			CK(cudaMalloc(&rowptr, (rows + 1) * sizeof(int)));
			CK(cudaMalloc(&colidx, (size_t)rows * per * sizeof(int)));
			CK(cudaMemcpy(rowptr, hp, (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
			CK(cudaMemcpy(colidx, hc, (size_t)rows * per * sizeof(int), cudaMemcpyHostToDevice));
			free(hp);
			free(hc);
		}
		spmv_csr_scalar<<<rows / 128, 128>>>(rowptr, colidx, big, a, out, rows);
		CK(cudaDeviceSynchronize());
		CK(cudaFree(rowptr));
		CK(cudaFree(colidx));
	});
	RUN(r, "horner_bank", horner_bank<<<(n / 8) / B, B>>>(b, a, out, n));
	RUN(r, "bmm_fp32_smem", {
		const int nb = 128, m = 256; // A, B, C: 128 x 256 x 256 floats each (32 MB)
		bmm_fp32_smem<<<dim3(m / BT, m / BT, nb), dim3(16, 16)>>>(big, big + (size_t)nb * m * m, out, m);
	});
	RUN(r, "copy_scale_f4", copy_scale_f4<<<(n / 2) / B, B>>>((const float4 *)big, (float4 *)(big + 2 * n), n / 2, 0.5f));
	RUN(r, "fma_ilp_regs", fma_ilp_regs<<<G / 4, B>>>(a, b, n / 4, 1024));
	RUN(r, "aos_read_stride48", aos_read_stride48<<<(1 << 22) / B, B>>>((const rec *)big, out, 1 << 22));
	RUN(r, "ridge_mixed_f2",
	    ridge_mixed_f2<<<(n / 2) / B, B>>>((const float2 *)big, (const float2 *)(big + n), (float2 *)out, n / 2));
	return corpus_finish(&r);
}
