// A gelu candidate: float4 loads and stores, a grid-stride loop, same math (within fp32 rounding).
#include <cuda_runtime.h>
#include <math.h>

#include "kp_native.h"

__device__ __forceinline__ float gelu(float v)
{
	float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
	return 0.5f * v * (1.0f + tanhf(inner));
}

__global__ void gelu_vec4(const float4 *x, float4 *y, int64_t n4)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
		float4 v = x[i];
		y[i] = make_float4(gelu(v.x), gelu(v.y), gelu(v.z), gelu(v.w));
	}
}

__global__ void gelu_tail(const float *x, float *y, int64_t from, int64_t n)
{
	int64_t i = from + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = gelu(x[i]);
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
	int64_t n = in[0].numel, n4 = n / 4;
	int blocks = 132 * 8;
	gelu_vec4<<<blocks, 256, 0, stream>>>((const float4 *)in[0].data, (float4 *)out[0].data, n4);
	if (n4 * 4 < n)
		gelu_tail<<<1, 256, 0, stream>>>((const float *)in[0].data, (float *)out[0].data, n4 * 4, n);
	return (int)cudaGetLastError();
}
