// A register-blocked SGEMM whose shape is left to tuning (docs/tune.md): a block of BX x BY threads
// computes a (BY*TM) x (BX*TN) tile of C, each thread TM x TN outputs, stepping through K in slices
// of BK kept in shared memory. The kernel part (above KP_KERNEL_ONLY) is plain device code, so Kernel
// Tuner can compile the same file (bench/tune-vs-kerneltuner.sh).
#include "kp_tune.h"

constexpr int kBx = KP_TUNE(BX, 16, 8, 32);     // threads along N
constexpr int kBy = KP_TUNE(BY, 16, 8, 32);     // threads along M
constexpr int kTm = KP_TUNE(TM, 4, 2, 8);       // rows of C per thread
constexpr int kTn = KP_TUNE(TN, 4, 2, 8);       // columns of C per thread
constexpr int kBk = KP_TUNE(BK, 16, 8, 32);     // K slice in shared memory
KP_TUNE_CONSTRAINT(BX * BY <= MAX_THREADS_PER_BLOCK && (BX * BY) % WARP_SIZE == 0);
KP_TUNE_CONSTRAINT((BY * TM + BX * TN) * BK * 4 <= SMEM_STATIC_PER_BLOCK);
KP_TUNE_CONSTRAINT(A_0 % (BY * TM) == 0 && B_1 % (BX * TN) == 0 && A_1 % BK == 0);

constexpr int kBm = kBy * kTm, kBn = kBx * kTn, kThreads = kBx * kBy;

// Thread (tx, ty) owns rows ty + m*BY and columns tx + n*BX of the tile: reads of the B slice are
// consecutive across a warp, reads of the A slice are broadcasts, stores to C are coalesced.
__global__ void sgemm_tuned(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M,
			    int N, int K)
{
	__shared__ float as[kBk][kBm]; // the A slice, transposed
	__shared__ float bs[kBk][kBn];
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kBx + tx;
	const int row0 = blockIdx.y * kBm, col0 = blockIdx.x * kBn;
	float acc[kTm][kTn];

	for (int m = 0; m < kTm; m++)
		for (int n = 0; n < kTn; n++)
			acc[m][n] = 0.0f;
	for (int k0 = 0; k0 < K; k0 += kBk) {
		for (int i = tid; i < kBm * kBk; i += kThreads) {
			int r = i / kBk, c = i % kBk;
			as[c][r] = A[(long long)(row0 + r) * K + k0 + c];
		}
		for (int i = tid; i < kBk * kBn; i += kThreads) {
			int r = i / kBn, c = i % kBn;
			bs[r][c] = B[(long long)(k0 + r) * N + col0 + c];
		}
		__syncthreads();
#pragma unroll
		for (int k = 0; k < kBk; k++) {
			float a[kTm], b[kTn];
			for (int m = 0; m < kTm; m++)
				a[m] = as[k][ty + m * kBy];
			for (int n = 0; n < kTn; n++)
				b[n] = bs[k][tx + n * kBx];
			for (int m = 0; m < kTm; m++)
				for (int n = 0; n < kTn; n++)
					acc[m][n] += a[m] * b[n];
		}
		__syncthreads();
	}
	for (int m = 0; m < kTm; m++)
		for (int n = 0; n < kTn; n++)
			C[(long long)(row0 + ty + m * kBy) * N + col0 + tx + n * kBx] = acc[m][n];
}

#ifndef KP_KERNEL_ONLY
#include <cuda_runtime.h>

#include "kp_native.h"

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	int M = (int)in[0].shape[0], K = (int)in[0].shape[1], N = (int)in[1].shape[1];
	if (M % kBm || N % kBn || K % kBk)
		return (int)cudaErrorInvalidValue; // the tiles must divide the problem (the constraints say so)
	sgemm_tuned<<<dim3(N / kBn, M / kBm), dim3(kBx, kBy), 0, stream>>>(
		(const float *)in[0].data, (const float *)in[1].data, (float *)out[0].data, M, N, K);
	return (int)cudaGetLastError();
}
#endif
