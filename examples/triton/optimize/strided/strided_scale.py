# A Triton task with a planted bottleneck, written for kernelpro's tests (tests/gpu/g1601-triton.sh):
# y = 2 * x over a [4096, 4096] float32 matrix, but the reference kernel walks the matrix in column
# order, so the 32 lanes of a warp read 32 different rows: every 32-byte sector brings 4 useful
# bytes. The tools' diagnosis of the reference must name the uncoalesced access first or second.
import torch
import torch.nn as nn
import triton
import triton.language as tl

KERNELPRO_MIN_BYTES = 2 * 4096 * 4096 * 4


@triton.jit
def scale_kernel(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    r = offs % rows
    c = offs // rows
    idx = r * cols + c  # neighbouring lanes: neighbouring rows of one column, `cols` elements apart
    mask = offs < rows * cols
    x = tl.load(x_ptr + idx, mask=mask, other=0.0)
    tl.store(y_ptr + idx, x * 2.0, mask=mask)


class Model(nn.Module):
    """
    y = 2 * x, computed by a Triton kernel that visits the elements column by column.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        rows, cols = x.shape
        scale_kernel[(triton.cdiv(rows * cols, 1024),)](x, y, rows, cols, BLOCK=1024, num_warps=4)
        return y


def get_inputs():
    return [torch.randn(4096, 4096)]


def get_init_inputs():
    return []
