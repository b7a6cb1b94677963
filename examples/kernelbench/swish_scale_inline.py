# A candidate for swish_scale.py written the way KernelBench's examples are: load_inline (slow to
# build, ~30 s, but compatible with KernelBench's own harness).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

swish_cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void swish_scale_kernel(const float *x, float *y, long n, float scale)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = scale * x[i] / (1.0f + expf(-x[i]));
}

torch::Tensor swish_scale_cuda(torch::Tensor x, double scale)
{
    auto y = torch::empty_like(x);
    long n = x.numel();
    const int block = 256;
    swish_scale_kernel<<<(n + block - 1) / block, block>>>(x.data_ptr<float>(), y.data_ptr<float>(), n, (float)scale);
    return y;
}
"""

swish_cpp_source = "torch::Tensor swish_scale_cuda(torch::Tensor x, double scale);"

swish_module = load_inline(
    name="kp_swish_scale",
    cpp_sources=swish_cpp_source,
    cuda_sources=swish_cuda_source,
    functions=["swish_scale_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return swish_module.swish_scale_cuda(x.contiguous(), self.scale)
