# Wrong: the large rows right, the small ones left at zero: within atol, and too small a share of the norm to move the whole output's relative error.
# kp-task: tests/adversarial/tasks/row_scales.py
# kp-expect-static: none
# kp-expect-verdict: wrong_output relative_error
# kp-also: --allow relative_error => wrong_output scaled_inputs
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
/* Even rows times 1, odd rows times small (the task's 1e-5; 0 drops them). */
__global__ void row_scale(const float *x, float *y, long rows, long cols, float small)
{
    long n = rows * cols;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        y[i] = (i / cols) % 2 == 0 ? x[i] : x[i] * small;
}
extern "C" int run(const float *x, float *y, long rows, long cols, float small, cudaStream_t s)
{
    row_scale<<<1024, 256, 0, s>>>(x, y, rows, cols, small);
    return (int)cudaGetLastError();
}
"""
lib = load_cuda(SRC, name="small_rows", functions={"run": ["ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, rows):
        super().__init__()  # the row scales are in the kernel: 1 for even rows, 1e-5 for odd ones

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.run(x, y, x.shape[0], x.shape[1], 0.0)
        return y
