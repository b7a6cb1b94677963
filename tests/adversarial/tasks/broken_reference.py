# A KernelBench-format task whose reference is broken: its forward multiplies shapes that do not
# match. Evaluating any candidate against it must be a harness error naming the reference (kernelpro
# exits 3), never the candidate's runtime_error (issue 21, medium 13; tests/gpu/g2101).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Scales x, then multiplies by a matrix of the wrong shape."""

    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale
        self.w = nn.Parameter(torch.randn(3, 5))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x * self.scale, self.w)


def get_inputs():
    return [torch.randn(64, 4)]


def get_init_inputs():
    return [2.0]
