// Honest: fp16 in and out, fp32 accumulation: a warp per row, half2 loads, a shuffle reduction (another
// summation order than the reference's).
// kp-task: tests/adversarial/tasks/nat_matvec_f16
// kp-expect-static: none
// kp-expect-verdict: correct
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kp_native.h"

__global__ void matvec(const __half2 *A, const __half2 *x, __half *y, long rows, long cols2)
{
	long row = blockIdx.x * (long)(blockDim.x / 32) + threadIdx.x / 32;
	int lane = threadIdx.x & 31;
	if (row >= rows)
		return;
	float s = 0.0f;
	for (long j = lane; j < cols2; j += 32) {
		float2 a = __half22float2(A[row * cols2 + j]), b = __half22float2(x[j]);
		s += a.x * b.x + a.y * b.y;
	}
	for (int o = 16; o; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if (!lane)
		y[row] = __float2half(s);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	long rows = in[0].shape[0], cols = in[0].shape[1];
	if (cols % 2)
		return (int)cudaErrorInvalidValue;
	matvec<<<(unsigned)((rows + 7) / 8), 256, 0, stream>>>((const __half2 *)in[0].data, (const __half2 *)in[1].data,
							       (__half *)out[0].data, rows, cols / 2);
	return (int)cudaGetLastError();
}
