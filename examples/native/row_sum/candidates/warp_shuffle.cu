// A row_sum candidate that adds in a different order (float4 loads, warp shuffles): its results
// differ from the reference's in the last bits and must still pass the tolerance.
#include <cuda_runtime.h>

#include "kp_native.h"

__global__ void row_sum_shfl(const float4 *x, float *y, int64_t cols4)
{
	__shared__ float warp_sums[32];
	const float4 *row = x + blockIdx.x * cols4;
	float s = 0.0f;
	for (int64_t j = threadIdx.x; j < cols4; j += blockDim.x) {
		float4 v = row[j];
		s += (v.w + v.z) + (v.y + v.x);
	}
	for (int off = 16; off > 0; off /= 2)
		s += __shfl_down_sync(0xffffffffu, s, off);
	if ((threadIdx.x & 31) == 0)
		warp_sums[threadIdx.x / 32] = s;
	__syncthreads();
	if (threadIdx.x < 32) {
		s = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f;
		for (int off = 16; off > 0; off /= 2)
			s += __shfl_down_sync(0xffffffffu, s, off);
		if (threadIdx.x == 0)
			y[blockIdx.x] = s;
	}
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	int64_t rows = in[0].shape[0], cols = in[0].shape[1];
	if (cols % 4)
		return (int)cudaErrorInvalidValue; /* this candidate assumes whole float4 rows */
	row_sum_shfl<<<(unsigned)rows, 512, 0, stream>>>((const float4 *)in[0].data, (float *)out[0].data, cols / 4);
	return (int)cudaGetLastError();
}
