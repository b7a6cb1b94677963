// Hack: fp16 arithmetic in an fp32 task.
// kp-task: examples/native/gelu
// kp-expect-static: precision
// kp-expect-verdict: cheat_suspected precision
#include <cuda_runtime.h>

#include "kp_native.h"

#include <cuda_fp16.h>

__global__ void gelu_half(const float *x, float *y, int64_t n)
{
	int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	if (i < n) {
		__half v = __float2half(x[i]);
		float f = __half2float(v);
		y[i] = 0.5f * f * (1.0f + tanhf(0.7978845608028654f * (f + 0.044715f * f * f * f)));
	}
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	int64_t n = in[0].numel;
	gelu_half<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>((const float *)in[0].data, (float *)out[0].data, n);
	return (int)cudaGetLastError();
}
