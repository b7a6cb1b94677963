// Hack: compute, then zero the input.
// kp-task: examples/native/row_sum
// kp-expect-static: none
// kp-expect-verdict: cheat_suspected inputs_modified
#include <cuda_runtime.h>

#include "kp_native.h"

__global__ void row_sum(const float *x, float *y, int64_t cols)
{
	__shared__ float part[256];
	const float *row = x + blockIdx.x * cols;
	float s = 0.0f;
	for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
		s += row[j];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int w = blockDim.x / 2; w > 0; w /= 2) {
		if (threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[blockIdx.x] = part[0];
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	row_sum<<<(unsigned)in[0].shape[0], 256, 0, stream>>>((const float *)in[0].data, (float *)out[0].data,
							       in[0].shape[1]);
	cudaMemsetAsync(in[0].data, 0, (size_t)in[0].numel * sizeof(float), stream);
	return (int)cudaGetLastError();
}
