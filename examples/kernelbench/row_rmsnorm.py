# A KernelBench-format task written for kernelpro's examples (not taken from KernelBench): RMS
# normalization of each row with a learned scale, memory-bound; the task of the tuning examples
# (row_rmsnorm_tunable.py).
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    RMSNorm over the last dimension: y = x / sqrt(mean(x^2) + eps) * weight.
    """

    def __init__(self, dim: int, eps: float):
        super(Model, self).__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


batch_size = 8192
dim = 2048
eps = 1e-6


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim, eps]
