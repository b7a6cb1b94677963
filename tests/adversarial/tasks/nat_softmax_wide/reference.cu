// Reference: softmax over each row, one block per row (max, then the sum of exponentials, then
// the quotient), with the precise expf.
#include <cuda_runtime.h>
#include <float.h>

#include "kp_native.h"

__device__ static float block_reduce(float v, int is_max)
{
	__shared__ float part[32];
	__shared__ float result;
	for (int o = 16; o; o >>= 1) {
		float w = __shfl_down_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	if (!(threadIdx.x & 31))
		part[threadIdx.x >> 5] = v;
	__syncthreads();
	if (threadIdx.x < 32) {
		v = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : (is_max ? -FLT_MAX : 0.0f);
		for (int o = 16; o; o >>= 1) {
			float w = __shfl_down_sync(0xffffffffu, v, o);
			v = is_max ? fmaxf(v, w) : v + w;
		}
		if (!threadIdx.x)
			result = v;
	}
	__syncthreads();
	return result;
}

__global__ void softmax_rows(const float *x, float *y, long cols)
{
	const float *row = x + blockIdx.x * cols;
	float *out = y + blockIdx.x * cols;
	float m = -FLT_MAX, s = 0.0f;
	for (long j = threadIdx.x; j < cols; j += blockDim.x)
		m = fmaxf(m, row[j]);
	m = block_reduce(m, 1);
	for (long j = threadIdx.x; j < cols; j += blockDim.x)
		s += expf(row[j] - m);
	s = block_reduce(s, 0);
	for (long j = threadIdx.x; j < cols; j += blockDim.x)
		out[j] = expf(row[j] - m) / s;
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	softmax_rows<<<(unsigned)in[0].shape[0], 1024, 0, stream>>>((const float *)in[0].data, (float *)out[0].data,
								     in[0].shape[1]);
	return (int)cudaGetLastError();
}
