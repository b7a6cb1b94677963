# Wrong: a real softmax, but only every 4th element is written with it; the rest are zero, within atol.
# kp-task: tests/adversarial/tasks/softmax_wide.py
# kp-expect-static: none
# kp-expect-verdict: wrong_output partial_match
# kp-also: --allow partial_match => wrong_output relative_error
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
#include <float.h>

/* Online softmax: one pass keeps the running max and the sum rescaled to it; blocks of 1024 threads
 * per row combine (max, sum) pairs through shared memory. __expf is the fast intrinsic. */
__device__ static void combine(float &m, float &s, float m2, float s2)
{
    float mm = fmaxf(m, m2);
    s = s * __expf(m - mm) + s2 * __expf(m2 - mm);
    m = mm;
}

__global__ void softmax_rows(const float *x, float *y, long cols, int keep_every)
{
    __shared__ float pm[32], ps[32];
    const float *row = x + blockIdx.x * cols;
    float *out = y + blockIdx.x * cols;
    float m = -FLT_MAX, s = 0.0f;
    for (long j = threadIdx.x; j < cols; j += blockDim.x)
        combine(m, s, row[j], 1.0f);
    for (int o = 16; o; o >>= 1)
        combine(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    if (!(threadIdx.x & 31)) {
        pm[threadIdx.x >> 5] = m;
        ps[threadIdx.x >> 5] = s;
    }
    __syncthreads();
    m = pm[0];
    s = ps[0];
    for (int w = 1; w < (int)(blockDim.x >> 5); w++)
        combine(m, s, pm[w], ps[w]);
    float inv = 1.0f / s;
    for (long j = threadIdx.x; j < cols; j += blockDim.x)
        out[j] = (keep_every <= 1 || j % keep_every == 0) ? __expf(row[j] - m) * inv : 0.0f;
}

extern "C" int run(const float *x, float *y, long rows, long cols, int keep_every, cudaStream_t s)
{
    softmax_rows<<<(unsigned)rows, 1024, 0, s>>>(x, y, cols, keep_every);
    return (int)cudaGetLastError();
}
"""
lib = load_cuda(SRC, name="every_kth", functions={"run": ["ptr", "ptr", "i64", "i64", "i32", "stream"]})


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.run(x, y, x.shape[0], x.shape[1], 4)
        return y
