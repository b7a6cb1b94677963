// A matmul candidate: 64 x 64 block tiles, 16-deep k slices, 4 x 4 outputs per thread held in
// registers. Any M, N, K (edges are guarded).
#include <cuda_runtime.h>

#include "kp_native.h"

#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4

__global__ void __launch_bounds__(256) matmul_reg(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ float As[BK][BM + 4];
	__shared__ float Bs[BK][BN];
	int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
	int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
	float acc[TM][TN] = {{0}};

	for (int k0 = 0; k0 < K; k0 += BK) {
		/* 256 threads load a 64 x 16 slice of A (transposed into As) and a 16 x 64 slice of B. */
		for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
			int r = i / BK, k = i % BK;
			int gr = row0 + r, gk = k0 + k;
			As[k][r] = gr < M && gk < K ? A[(size_t)gr * K + gk] : 0.0f;
		}
		for (int i = threadIdx.x; i < BK * BN; i += blockDim.x) {
			int k = i / BN, c = i % BN;
			int gk = k0 + k, gc = col0 + c;
			Bs[k][c] = gk < K && gc < N ? B[(size_t)gk * N + gc] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int k = 0; k < BK; k++) {
			float a[TM], b[TN];
#pragma unroll
			for (int i = 0; i < TM; i++)
				a[i] = As[k][ty * TM + i];
#pragma unroll
			for (int j = 0; j < TN; j++)
				b[j] = Bs[k][tx * TN + j];
#pragma unroll
			for (int i = 0; i < TM; i++)
#pragma unroll
				for (int j = 0; j < TN; j++)
					acc[i][j] += a[i] * b[j];
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++) {
			int r = row0 + ty * TM + i, c = col0 + tx * TN + j;
			if (r < M && c < N)
				C[(size_t)r * N + c] = acc[i][j];
		}
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	int M = (int)in[0].shape[0], K = (int)in[0].shape[1], N = (int)in[1].shape[1];
	dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
	matmul_reg<<<grid, 256, 0, stream>>>((const float *)in[0].data, (const float *)in[1].data, (float *)out[0].data,
					     M, N, K);
	return (int)cudaGetLastError();
}
