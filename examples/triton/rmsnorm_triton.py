# A Triton candidate for examples/optimize/rmsnorm/rmsnorm.py (y = x / sqrt(mean(x^2) + eps) * weight
# over rows of 4096): a reduction, one program per row, the whole row in registers (one read, one
# write).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean_sq = tl.sum(x * x, axis=0) / n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, x * tl.rsqrt(mean_sq + eps) * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))  # the same draw as Model's

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n_cols = x.shape[-1]
        rows = x.numel() // n_cols
        y = torch.empty_like(x)
        rmsnorm_kernel[(rows,)](x, self.weight, y, n_cols, n_cols, self.eps,
                                BLOCK=triton.next_power_of_2(n_cols), num_warps=8)
        return y
