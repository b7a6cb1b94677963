# A Python candidate without a KP_TUNE dict: knobs derived from the CUDA in its string literals.
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

__global__ void swish_scale_kernel(const float4 *x, float4 *y, long n4, float scale)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = scale * v.x / (1.0f + expf(-v.x));
        v.y = scale * v.y / (1.0f + expf(-v.y));
        v.z = scale * v.z / (1.0f + expf(-v.z));
        v.w = scale * v.w / (1.0f + expf(-v.w));
        y[i] = v;
    }
}

__global__ void swish_scale_tail(const float *x, float *y, long from, long n, float scale)
{
    long i = from + blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = scale * x[i] / (1.0f + expf(-x[i]));
}

extern "C" int swish_scale(const float *x, float *y, long n, float scale, cudaStream_t stream)
{
    long n4 = n / 4;
    if (n4)
        swish_scale_kernel<<<132 * 8, 256, 0, stream>>>((const float4 *)x, (float4 *)y, n4, scale);
    if (n4 * 4 < n)
        swish_scale_tail<<<1, 256, 0, stream>>>(x, y, n4 * 4, n, scale);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="swish_scale", functions={"swish_scale": ["ptr", "ptr", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.swish_scale(x, y, x.numel(), self.scale)
        return y
