// Reference for the tune tests' task: y = 2 x.
#include <cuda_runtime.h>

#include "kp_native.h"

__global__ void scale2(const float *x, float *y, long n)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	long n = (long)in[0].numel;
	scale2<<<(n + 255) / 256, 256, 0, stream>>>((const float *)in[0].data, (float *)out[0].data, n);
	return (int)cudaGetLastError();
}
