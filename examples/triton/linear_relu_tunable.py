# A tunable Triton candidate for linear_relu.py: the kernel of linear_relu_triton.py without
# @triton.autotune, its meta-parameters left to kernelpro's tuner through the KP_TUNE dict
# (prompts/knobs-triton.txt, docs/tune.md): kernelpro tune examples/triton/linear_relu.py THIS_FILE.
import torch
import torch.nn as nn
import triton
import triton.language as tl

KP_TUNE = {"BLOCK_M": [64, 128], "BLOCK_N": [64, 128], "BLOCK_K": [32, 64],
           "WARPS": [4, 8], "STAGES": [3, 4]}
KP_TUNE_CONSTRAINTS = ["BLOCK_M * BLOCK_N <= 4096 * WARPS",
                       "(BLOCK_M + BLOCK_N) * BLOCK_K * 4 * STAGES <= SMEM_PER_BLOCK"]
BLOCK_M, BLOCK_N, BLOCK_K = KP_TUNE["BLOCK_M"][0], KP_TUNE["BLOCK_N"][0], KP_TUNE["BLOCK_K"][0]
WARPS, STAGES = KP_TUNE["WARPS"][0], KP_TUNE["STAGES"][0]


@triton.jit
def linear_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                       stride_xm, stride_xk, stride_wn, stride_wk, stride_ym, stride_yn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + rk
        # [BLOCK_M, BLOCK_K] tile of x; k, the contiguous axis of x, is the block's last axis
        a = tl.load(x_ptr + rm[:, None] * stride_xm + k[None, :] * stride_xk,
                    mask=(rm[:, None] < M) & (k[None, :] < K), other=0.0)
        # [BLOCK_K, BLOCK_N] tile of W.T (W is [N, K], nn.Linear's layout)
        b = tl.load(w_ptr + rn[None, :] * stride_wn + k[:, None] * stride_wk,
                    mask=(rn[None, :] < N) & (k[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    y = tl.maximum(acc + bias[None, :], 0.0)
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :] * stride_yn, y,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)  # the same parameters as Model, in the same order

    def forward(self, x):
        x = x.contiguous()
        w, b = self.linear.weight, self.linear.bias
        M, K = x.shape
        N = w.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        linear_relu_kernel[grid](x, w, b, y, M, N, K, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                                 y.stride(0), y.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                 num_warps=WARPS, num_stages=STAGES)
        return y
