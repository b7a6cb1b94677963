"""Held-out multi-kernel PyTorch modules (issue 19), each profiled as a whole task.

Each entry builds (model, inputs) on the CPU; run_module.py moves them to the GPU (copies, no
kernels) so that a profile holds only the forward pass's kernels. The planted bottleneck of each
task and the class of each kernel are in labels.json ("modules"), written before any GPU run.
"""


def conv1x1_gn_silu_res(torch):
    """1x1 convolution (32 -> 32 channels, FP32 NCHW), GroupNorm(8), SiLU, then out = x + 0.5 * y.

    Every kernel is memory-bound (the convolution has ~8 FLOP per DRAM byte) and each writes and
    re-reads a 64 MiB tensor: the task moves several times its minimum traffic (x read once, the
    output written once). The planted bottleneck is the unfused tail: fusing norm, activation and
    residual (or all of it into the convolution's epilogue) is the only big win."""
    nn = torch.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(32, 32, 1)
            self.norm = nn.GroupNorm(8, 32)

        def forward(self, x):
            y = torch.nn.functional.silu(self.norm(self.conv(x)))
            return torch.add(x, y, alpha=0.5)

    return M(), (torch.randn(128, 32, 64, 64),)


def linear_gelu_fp32(torch):
    """nn.Linear(4096, 4096) with bias on a 4096 x 4096 FP32 input, then exact GELU.

    FP32 matmul in IEEE precision (PyTorch's default) runs on FFMA (cuBLAS SIMT SGEMM): the GEMM
    holds nearly all the time, and TF32 or bf16 tensor cores would make it several times faster.
    The GELU is a memory-bound elementwise pass near the DRAM roof."""
    nn = torch.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4096, 4096)

        def forward(self, x):
            return torch.nn.functional.gelu(self.fc(x))

    return M(), (torch.randn(4096, 4096),)


MODULES = {
    "conv1x1_gn_silu_res": conv1x1_gn_silu_res,
    "linear_gelu_fp32": linear_gelu_fp32,
}
