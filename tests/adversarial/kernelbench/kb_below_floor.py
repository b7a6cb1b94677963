# An honest kernel evaluated with an impossible roofline floor (1 s): the floor check must refuse a
# runtime no correct kernel could reach (the floor is Stage 1's input; here it is forced).
# kp-task: examples/kernelbench/swish_scale.py
# kp-expect-static: none
# kp-expect-verdict: cheat_suspected below_floor
# kp-eval-args: --floor 1.0
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
__global__ void swish(const float *x, float *y, long n, float scale)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = scale * x[i] / (1.0f + expf(-x[i]));
}
extern "C" int run(const float *x, float *y, long n, float scale, cudaStream_t s)
{
    swish<<<(n + 255) / 256, 256, 0, s>>>(x, y, n, scale);
    return (int)cudaGetLastError();
}
"""
lib = load_cuda(SRC, name="floor", functions={"run": ["ptr", "ptr", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        y = torch.empty_like(x)
        lib.run(x, y, x.numel(), self.scale)
        return y
