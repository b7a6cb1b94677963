# A square fp32 matrix product in KernelBench's layout (as level 1's 1_Square_matrix_multiplication_,
# at 2048): the task of the content-keyed cache case, tests/adversarial/kernelbench/kb_content_cache.py.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


N = 2048


def get_inputs():
    return [torch.rand(N, N), torch.rand(N, N)]


def get_init_inputs():
    return []
