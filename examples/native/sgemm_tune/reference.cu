// Reference for sgemm_tune: one output per thread, 16 x 16 tiles of A and B in shared memory.
#include <cuda_runtime.h>

#include "kp_native.h"

#define T 16

__global__ void sgemm_ref(const float *A, const float *B, float *C, int M, int N, int K)
{
	__shared__ float a[T][T], b[T][T];
	int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
	float acc = 0.0f;
	for (int k0 = 0; k0 < K; k0 += T) {
		a[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? A[(size_t)row * K + k0 + threadIdx.x] : 0.0f;
		b[threadIdx.y][threadIdx.x] = col < N && k0 + threadIdx.y < K ? B[(size_t)(k0 + threadIdx.y) * N + col] : 0.0f;
		__syncthreads();
		for (int k = 0; k < T; k++)
			acc += a[threadIdx.y][k] * b[k][threadIdx.x];
		__syncthreads();
	}
	if (row < M && col < N)
		C[(size_t)row * N + col] = acc;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	int M = (int)in[0].shape[0], K = (int)in[0].shape[1], N = (int)in[1].shape[1];
	dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
	sgemm_ref<<<grid, block, 0, stream>>>((const float *)in[0].data, (const float *)in[1].data, (float *)out[0].data,
					      M, N, K);
	return (int)cudaGetLastError();
}
