"""Development multi-kernel PyTorch modules (issue 19): same families as bench/corpus2/modules.py,
different tasks. Labels in labels.json ("modules") were written before any GPU run."""


def conv3x3_bn_relu(torch):
    """3x3 convolution (64 -> 128 channels, FP32 NCHW on 32 x 56 x 56; cuDNN may use TF32 tensor
    cores, PyTorch's default for convolutions), BatchNorm2d in eval mode, in-place ReLU.

    The convolution is compute-bound (~190 FLOP per DRAM byte); the norm and the activation are
    memory-bound passes over a 51 MB tensor that a fused epilogue would remove."""
    nn = torch.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(64, 128, 3, padding=1)
            self.bn = nn.BatchNorm2d(128)
            self.relu = nn.ReLU(inplace=True)

        def forward(self, x):
            return self.relu(self.bn(self.conv(x)))

    m = M()
    with torch.no_grad():  # non-trivial running statistics, as after training
        m.bn.running_mean.uniform_(-0.1, 0.1)
        m.bn.running_var.uniform_(0.5, 1.5)
    return m.eval(), (torch.randn(32, 64, 56, 56),)


def ln_linear_relu_bf16(torch):
    """LayerNorm(2048), nn.Linear(2048, 8192) and ReLU in bf16 on 8192 tokens.

    The GEMM runs on bf16 tensor cores through cuBLAS and sits near its roof; the LayerNorm and the
    ReLU are memory-bound passes."""
    nn = torch.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(2048)
            self.fc = nn.Linear(2048, 8192)

        def forward(self, x):
            return torch.relu(self.fc(self.ln(x)))

    return M().to(torch.bfloat16), (torch.randn(8192, 2048).to(torch.bfloat16),)


MODULES = {
    "conv3x3_bn_relu": conv3x3_bn_relu,
    "ln_linear_relu_bf16": ln_linear_relu_bf16,
}
