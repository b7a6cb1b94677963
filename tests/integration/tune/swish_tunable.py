# A tunable KernelBench candidate for the tune tests (tests/integration/t1801-tune.sh), against
# examples/kernelbench/swish_scale.py. The fake harness reads the comments below with the KP_TUNE values.
# fake-cost: 0.5 + abs(WAVES - 16) / 32.0 + (0.2 if BLOCK == 128 else 0.0)
# fake-wrong: WAVES == 2
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

KP_TUNE = {"BLOCK": [256, 128], "WAVES": [8, 2, 16, 32]}
BLOCK, WAVES = KP_TUNE["BLOCK"][0], KP_TUNE["WAVES"][0]

SRC = r"""
#include <cuda_runtime.h>
__global__ void swish(const float *x, float *y, long n, float scale)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        y[i] = scale * x[i] / (1.0f + expf(-x[i]));
}
extern "C" int swish_scale(const float *x, float *y, long n, float scale, cudaStream_t s)
{
    swish<<<132 * WAVES, BLOCK, 0, s>>>(x, y, n, scale);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="swish", functions={"swish_scale": ["ptr", "ptr", "i64", "f32", "stream"]},
                extra_flags=["-DBLOCK=%d" % BLOCK, "-DWAVES=%d" % WAVES])


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        lib.swish_scale(x.contiguous(), y, x.numel(), self.scale)
        return y
