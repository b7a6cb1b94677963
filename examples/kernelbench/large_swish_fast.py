# A candidate for large_swish.py on kernelpro's fast path: one vectorised pass (float4 loads and stores,
# 64-bit indices: the input has 1.61e9 elements), built by nvcc -shared and called through ctypes.
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SWISH_SRC = r"""
#include <cuda_runtime.h>

__global__ void swish_kernel(const float4 *x, float4 *y, long n4)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = v.x / (1.0f + expf(-v.x));
        v.y = v.y / (1.0f + expf(-v.y));
        v.z = v.z / (1.0f + expf(-v.z));
        v.w = v.w / (1.0f + expf(-v.w));
        y[i] = v;
    }
}

__global__ void swish_tail(const float *x, float *y, long from, long n)
{
    long i = from + blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i] / (1.0f + expf(-x[i]));
}

extern "C" int swish(const float *x, float *y, long n, cudaStream_t stream)
{
    long n4 = n / 4;
    if (n4)
        swish_kernel<<<132 * 16, 256, 0, stream>>>((const float4 *)x, (float4 *)y, n4);
    if (n4 * 4 < n)
        swish_tail<<<1, 256, 0, stream>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SWISH_SRC, name="large_swish", functions={"swish": ["ptr", "ptr", "i64", "stream"]})


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.swish(x, y, x.numel())
        return y
