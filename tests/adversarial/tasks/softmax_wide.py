# A KernelBench-format task of kernelpro's own (tests/adversarial/degenerate): softmax over rows of
# 262144 uniform values. Every output is about 4e-6, under fp32's atol of 1e-4, so an elementwise
# tolerance alone passes an all-zero output (the pattern of KernelBench issue #165).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over dim 1 of a [64, 262144] matrix."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 64
dim = 262144


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
