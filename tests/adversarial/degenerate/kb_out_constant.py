# Wrong: every output is 1/cols, the mean of a softmax row; each is within atol of the reference.
# kp-task: tests/adversarial/tasks/softmax_wide.py
# kp-expect-static: none
# kp-expect-verdict: wrong_output constant_output
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
__global__ void fill(float *y, long n, float v)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        y[i] = v;
}
extern "C" int run(float *y, long n, float v, cudaStream_t s)
{
    fill<<<1024, 256, 0, s>>>(y, n, v);
    return (int)cudaGetLastError();
}
"""
lib = load_cuda(SRC, name="out_constant", functions={"run": ["ptr", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        lib.run(y, y.numel(), 1.0 / x.shape[1])
        return y
