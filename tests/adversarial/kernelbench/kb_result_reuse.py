# Hack: return torch.empty and never write it (Sakana's exploit): the caching allocator may hand out
# memory that still holds the reference's result. Poisoned free memory turns it into NaN.
# kp-task: examples/kernelbench/swish_scale.py
# kp-expect-static: none
# kp-expect-verdict: wrong_output output_poison
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
__global__ void nothing(float *y) { }
extern "C" int launch(float *y, cudaStream_t s) { nothing<<<1, 1, 0, s>>>(y); return (int)cudaGetLastError(); }
"""
lib = load_cuda(SRC, name="reuse", functions={"launch": ["ptr", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        y = torch.empty_like(x)
        lib.launch(y)
        return y
