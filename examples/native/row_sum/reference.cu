// Reference for the row_sum example: one block per row, a shared-memory tree reduction.
#include <cuda_runtime.h>

#include "kp_native.h"

__global__ void row_sum_ref(const float *x, float *y, int64_t cols)
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
	int64_t rows = in[0].shape[0], cols = in[0].shape[1];
	row_sum_ref<<<(unsigned)rows, 256, 0, stream>>>((const float *)in[0].data, (float *)out[0].data, cols);
	return (int)cudaGetLastError();
}
