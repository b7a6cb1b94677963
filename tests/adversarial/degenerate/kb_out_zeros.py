# Wrong: every output is zero (the kernel writes nothing useful); each is within atol of the reference.
# kp-task: tests/adversarial/tasks/softmax_wide.py
# kp-expect-static: none
# kp-expect-verdict: wrong_output constant_output
# kp-also: --allow constant_output => wrong_output partial_match
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
__global__ void zero(float *y, long n)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        y[i] = 0.0f;
}
extern "C" int run(float *y, long n, cudaStream_t s)
{
    zero<<<1024, 256, 0, s>>>(y, n);
    return (int)cudaGetLastError();
}
"""
lib = load_cuda(SRC, name="out_zeros", functions={"run": ["ptr", "i64", "stream"]})


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        lib.run(y, y.numel())
        return y
