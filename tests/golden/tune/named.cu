// Derived knobs through names: a #define, a const int with a computed grid, a constexpr unroll count.
#include <cuda_runtime.h>

#include "kp_native.h"

#define BLOCK_SIZE 256

__global__ void block_sum(const float *x, float *partial, long n)
{
	__shared__ float s[BLOCK_SIZE];
	long i = blockIdx.x * (long)BLOCK_SIZE + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0;
	__syncthreads();
	for (int w = BLOCK_SIZE / 2; w > 0; w >>= 1) {
		if (threadIdx.x < w)
			s[threadIdx.x] += s[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		partial[blockIdx.x] = s[0];
}

constexpr int kUnroll = 8;

__global__ void axpy(float a, const float *x, float *y, long n)
{
	long i = (blockIdx.x * (long)blockDim.x + threadIdx.x) * kUnroll;
#pragma unroll kUnroll
	for (int k = 0; k < kUnroll; k++)
		if (i + k < n)
			y[i + k] += a * x[i + k];
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	long n = in[0].numel;
	const int threads = 128;
	int blocks = (int)((n + threads * kUnroll - 1) / (threads * kUnroll));
	block_sum<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE, 0, stream>>>((const float *)in[0].data,
										(float *)out[0].data, n);
	axpy<<<blocks, threads, 0, stream>>>(2.0f, (const float *)in[0].data, (float *)out[1].data, n);
	return (int)cudaGetLastError();
}
