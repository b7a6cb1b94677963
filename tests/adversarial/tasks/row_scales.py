# A KernelBench-format task of kernelpro's own (tests/adversarial/degenerate): rows at two scales.
# Even rows are the input, odd rows the input times 1e-5: the odd rows are under atol, and they carry
# too little of the output's norm for a whole-output relative error to notice them.
import torch
import torch.nn as nn


class Model(nn.Module):
    """y[i, j] = x[i, j] * (1 if i is even else 1e-5), x is [1024, 4096]."""

    def __init__(self, rows):
        super().__init__()
        scale = torch.where(torch.arange(rows) % 2 == 0, torch.tensor(1.0), torch.tensor(1e-5))
        self.register_buffer("scale", scale)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale[:, None]


rows = 1024
cols = 4096


def get_inputs():
    return [torch.rand(rows, cols) * 2 - 1]


def get_init_inputs():
    return [rows]
