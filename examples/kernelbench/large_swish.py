# A KernelBench-format task written for kernelpro (not taken from KernelBench): Swish over a 6 GiB fp32
# activation (4096 x 393216 = 1.61e9 elements), the size of KernelBench's largest level-1 elementwise
# problems, for measuring what one evaluation costs when the inputs are large
# (bench/eval-throughput.sh).
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Swish: y = x * sigmoid(x).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)


batch_size = 4096
dim = 393216


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
