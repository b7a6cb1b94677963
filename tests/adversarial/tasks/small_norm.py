# A KernelBench-format task of kernelpro's own (tests/adversarial/degenerate): layer normalisation to a
# small scale. Outputs are about 1e-5, under fp32's atol of 1e-4.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """Layer norm over the last dimension of a [512, 2048] matrix, times a gain of 1e-5."""

    def __init__(self, dim, gain):
        super().__init__()
        self.dim = dim
        self.gain = gain

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, (self.dim,)) * self.gain


batch_size = 512
dim = 2048
gain = 1e-5


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [dim, gain]
