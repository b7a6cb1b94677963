# A Triton task written for kernelpro's examples (docs/triton.md): the reference is a Triton kernel,
# a row softmax over [8192, 8192] float32 that makes three passes over each row in chunks of 256
# (maximum, sum of exponentials, output), so it reads the matrix three times. Model, get_inputs and
# get_init_inputs give the shapes and inputs, exactly as in a KernelBench task.
import torch
import torch.nn as nn
import triton
import triton.language as tl

KERNELPRO_MIN_BYTES = 2 * 8192 * 8192 * 4  # one read and one write of the matrix


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * stride
    m_acc = tl.full([BLOCK], -float("inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=-float("inf"))
        m_acc = tl.maximum(m_acc, x)
    m = tl.max(m_acc, axis=0)
    s_acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=-float("inf"))
        s_acc += tl.exp(x - m)
    s = tl.sum(s_acc, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=0.0)
        tl.store(y_ptr + base + cols, tl.exp(x - m) / s, mask=cols < n_cols)


class Model(nn.Module):
    """
    Row softmax of a float32 matrix, computed by a Triton kernel in three passes over each row.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=256, num_warps=4)
        return y


rows = 8192
cols = 8192


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
