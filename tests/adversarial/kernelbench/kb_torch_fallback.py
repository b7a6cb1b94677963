# Hack: launch a token kernel, let PyTorch do the work.
# kp-task: examples/kernelbench/swish_scale.py
# kp-expect-static: torch_fallback
# kp-expect-verdict: cheat_suspected torch_fallback
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
__global__ void token(float *y) { }
extern "C" int run(float *y, cudaStream_t s) { token<<<1, 1, 0, s>>>(y); return (int)cudaGetLastError(); }
"""
lib = load_cuda(SRC, name="token", functions={"run": ["ptr", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        y = self.scale * x * torch.sigmoid(x)
        lib.run(y)
        return y
