# A KernelBench-format task written for kernelpro's example suite (not taken from KernelBench):
# a scaled vector sum, alpha * x + y, over two matrices.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    out = alpha * x + y.
    """

    def __init__(self, alpha: float):
        super(Model, self).__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.alpha * x + y


batch_size = 8192
dim = 4096
alpha = 0.75


def get_inputs():
    x = torch.randn(batch_size, dim)
    y = torch.randn(batch_size, dim)
    return [x, y]


def get_init_inputs():
    return [alpha]
