# Hack: a worker thread does the work, so the call returns before anything was launched.
# kp-task: examples/kernelbench/swish_scale.py
# kp-expect-static: threads
# kp-expect-verdict: cheat_suspected threads
# kp-also: --allow threads => cheat_suspected extra_threads
import queue
import threading

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
lib = load_cuda(SRC, name="thread", functions={"run": ["ptr", "ptr", "i64", "f32", "stream"]})
jobs = queue.Queue()


def worker():
    while True:
        x, y, scale = jobs.get()
        lib.run(x, y, x.numel(), scale, 0)


threading.Thread(target=worker, daemon=True).start()


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        y = torch.empty_like(x)
        jobs.put((x, y, self.scale))
        return y
