# A KernelBench-format task written for kernelpro's examples (not taken from KernelBench): a scaled
# Swish over a level-1-sized activation, so a candidate's cost is the harness's, not the GPU's.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Scaled Swish: y = scale * x * sigmoid(x).
    """

    def __init__(self, scale: float):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.scale * x * torch.sigmoid(x)


batch_size = 4096
dim = 4096
scale = 1.5


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [scale]
