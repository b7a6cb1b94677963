# Wrong: returns the input times 1e-5, a tiny scaled copy of the input, within atol of the softmax.
# kp-task: tests/adversarial/tasks/softmax_wide.py
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
lib = load_cuda(SRC, name="scaled_input", functions={"run": ["ptr", "ptr", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.run(x, y, x.numel(), 1e-5)
        return y
