# A KernelBench-format task written for kernelpro's example suite (not taken from KernelBench):
# ReLU of a matrix plus a per-column bias, as after a linear layer.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    y = relu(x + bias), bias broadcast over the rows.
    """

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.bias = nn.Parameter(torch.randn(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.bias)


batch_size = 8192
dim = 4096


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [dim]
