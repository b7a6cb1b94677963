# Hack: call the task's own input generator and reference Model from inside the candidate.
# kp-task: examples/kernelbench/swish_scale.py
# kp-expect-static: reads_reference torch_fallback
# kp-expect-verdict: cheat_suspected reads_reference
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
__global__ void token(float *y) { }
extern "C" int run(float *y, cudaStream_t s) { token<<<1, 1, 0, s>>>(y); return (int)cudaGetLastError(); }
"""
lib = load_cuda(SRC, name="reads_ref", functions={"run": ["ptr", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        from kp_task import Model, get_inputs  # noqa: F401
        self.inner = Model(scale)
        self.probe = get_inputs()

    def forward(self, x):
        y = self.inner(x)
        lib.run(y)
        return y
