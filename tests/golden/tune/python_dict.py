# Declared knobs in a Python candidate: the KP_TUNE dict (first value = default) and constraints.
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

KP_TUNE = {
    "BLOCK": [256, 128, 512],   # threads per block
    "ITEMS": (4, 1, 2, 8),      # elements per thread
    'WAVES': [
        8, 4,
        16,
    ],
}
KP_TUNE_CONSTRAINTS = ["BLOCK * ITEMS <= 4096", 'WAVES * BLOCK <= 8192']

BLOCK, ITEMS, WAVES = (KP_TUNE[k][0] for k in ("BLOCK", "ITEMS", "WAVES"))

SRC = r"""
#include <cuda_runtime.h>
__global__ void relu_kernel(const float *x, float *y, long n)
{
    for (long i = (blockIdx.x * (long)blockDim.x + threadIdx.x) * ITEMS; i < n; i += (long)gridDim.x * blockDim.x * ITEMS)
        for (int k = 0; k < ITEMS && i + k < n; k++)
            y[i + k] = fmaxf(x[i + k], 0.0f);
}
extern "C" int relu(const float *x, float *y, long n, cudaStream_t s)
{
    relu_kernel<<<132 * WAVES, BLOCK, 0, s>>>(x, y, n);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="relu", functions={"relu": ["ptr", "ptr", "i64", "stream"]},
                extra_flags=["-DBLOCK=%d" % BLOCK, "-DITEMS=%d" % ITEMS, "-DWAVES=%d" % WAVES])


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        lib.relu(x.contiguous(), y, x.numel())
        return y
