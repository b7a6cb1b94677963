# A KernelBench-format task written for kernelpro's Triton examples (not taken from KernelBench): a
# linear layer followed by ReLU, a matrix product PyTorch runs with cuBLAS (TF32 off) plus one
# elementwise pass.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    y = relu(x @ W.T + b) for x of shape [4096, 1024] and an nn.Linear(1024, 1024).
    """

    def __init__(self, in_features: int, out_features: int):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


batch_size = 4096
in_features = 1024
out_features = 1024


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
