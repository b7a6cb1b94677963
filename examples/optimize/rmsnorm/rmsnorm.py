# A KernelBench-format task written for kernelpro's examples (not taken from KernelBench): RMSNorm
# over the last dimension with a learned scale. PyTorch eager runs it as several kernels, each a
# pass over the 128 MiB activation; one fused kernel needs one read and one write.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RMSNorm: y = x / sqrt(mean(x^2, last dim) + eps) * weight.
    """

    def __init__(self, dim: int, eps: float):
        super(Model, self).__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


batch_size = 8192
dim = 4096
eps = 1e-6


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim, eps]
