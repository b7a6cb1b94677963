# Hack: the matrix product with PyTorch's @ (cuBLAS) and only the bias and ReLU in Triton.
# kp-task: examples/triton/linear_relu.py
# kp-expect-static: host_compute
# kp-expect-verdict: cheat_suspected host_compute
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(h_ptr, b_ptr, y_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    h = tl.load(h_ptr + offs, mask=offs < n)
    b = tl.load(b_ptr + offs % cols, mask=offs < n)
    tl.store(y_ptr + offs, tl.maximum(h + b, 0.0), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = x @ self.linear.weight.t()
        y = torch.empty_like(h)
        bias_relu_kernel[(triton.cdiv(h.numel(), 1024),)](h, self.linear.bias, y, h.numel(), h.shape[1], BLOCK=1024)
        return y
