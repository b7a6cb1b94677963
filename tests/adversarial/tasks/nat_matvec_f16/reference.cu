// Reference: one thread per row, products accumulated in fp32 in order, the sum rounded to fp16.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kp_native.h"

__global__ void matvec(const __half *A, const __half *x, __half *y, long rows, long cols)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (i >= rows)
		return;
	float s = 0.0f;
	for (long j = 0; j < cols; j++)
		s += __half2float(A[i * cols + j]) * __half2float(x[j]);
	y[i] = __float2half(s);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	long rows = in[0].shape[0], cols = in[0].shape[1];
	matvec<<<(unsigned)((rows + 127) / 128), 128, 0, stream>>>((const __half *)in[0].data, (const __half *)in[1].data,
								     (__half *)out[0].data, rows, cols);
	return (int)cudaGetLastError();
}
