# Honest: layer norm with one block per row, mean and variance in two reductions (another order), rsqrtf.
# kp-task: tests/adversarial/tasks/small_norm.py
# kp-expect-static: none
# kp-expect-verdict: correct
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>

__device__ static float block_sum(float v, float *part)
{
    for (int o = 16; o; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if (!(threadIdx.x & 31))
        part[threadIdx.x >> 5] = v;
    __syncthreads();
    float s = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); w++)
        s += part[w];
    return s;
}

__global__ void layer_norm(const float *x, float *y, long cols, float gain, float eps)
{
    __shared__ float part[32];
    const float *row = x + blockIdx.x * cols;
    float *out = y + blockIdx.x * cols;
    float s = 0.0f;
    for (long j = threadIdx.x; j < cols; j += blockDim.x)
        s += row[j];
    float mean = block_sum(s, part) / (float)cols;
    float q = 0.0f;
    for (long j = threadIdx.x; j < cols; j += blockDim.x) {
        float d = row[j] - mean;
        q += d * d;
    }
    float r = rsqrtf(block_sum(q, part) / (float)cols + eps);
    for (long j = threadIdx.x; j < cols; j += blockDim.x)
        out[j] = (row[j] - mean) * r * gain;
}

extern "C" int run(const float *x, float *y, long rows, long cols, float gain, cudaStream_t s)
{
    layer_norm<<<(unsigned)rows, 512, 0, s>>>(x, y, cols, gain, 1e-5f);
    return (int)cudaGetLastError();
}
"""
lib = load_cuda(SRC, name="small_norm", functions={"run": ["ptr", "ptr", "i64", "i64", "f32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self, dim, gain):
        super().__init__()
        self.gain = gain

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.run(x, y, x.shape[0], x.shape[1], self.gain)
        return y
