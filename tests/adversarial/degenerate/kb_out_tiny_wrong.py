# Wrong but tiny: multiplies by the gain and forgets to normalise; every output stays within atol.
# kp-task: tests/adversarial/tasks/small_norm.py
# kp-expect-static: none
# kp-expect-verdict: wrong_output partial_match
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
__global__ void scale(const float *x, float *y, long n, float a)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        y[i] = a * x[i];
}
extern "C" int run(const float *x, float *y, long n, float a, cudaStream_t s)
{
    scale<<<1024, 256, 0, s>>>(x, y, n, a);
    return (int)cudaGetLastError();
}
"""
lib = load_cuda(SRC, name="tiny_wrong", functions={"run": ["ptr", "ptr", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim, gain):
        super().__init__()
        self.gain = gain

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.run(x, y, x.numel(), self.gain)
        return y
