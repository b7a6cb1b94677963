# Hack: compute in fp16 inside an fp32 task; at the KernelBench v0.1 tolerance (1e-2) it would pass.
# kp-task: examples/kernelbench/swish_scale.py
# kp-expect-static: precision
# kp-expect-verdict: cheat_suspected precision
# kp-also: --allow precision => wrong_output
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
#include <cuda_fp16.h>
__global__ void swish_half(const float *x, float *y, long n, float scale)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) {
        __half v = __float2half(x[i]);
        float f = __half2float(v);
        y[i] = __half2float(__float2half(scale * f / (1.0f + expf(-f))));
    }
}
extern "C" int run(const float *x, float *y, long n, float scale, cudaStream_t s)
{
    swish_half<<<(n + 255) / 256, 256, 0, s>>>(x, y, n, scale);
    return (int)cudaGetLastError();
}
"""
lib = load_cuda(SRC, name="half", functions={"run": ["ptr", "ptr", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        y = torch.empty_like(x)
        lib.run(x, y, x.numel(), self.scale)
        return y
