# A candidate for examples/optimize/rmsnorm/rmsnorm.py on kernelpro's fast path whose block size and load
# width are left to tuning (docs/tune.md, `kernelpro tune`): the KP_TUNE dict's first values are the
# untuned choice, and the kernel gets each knob as a -D flag. One block per row: the sum of squares by THREADS threads
# reading VEC floats at a time, a block reduction, then the scaled row.
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

KP_TUNE = {"THREADS": [1024, 128, 256, 512], "VEC": [1, 2, 4]}
KP_TUNE_CONSTRAINTS = ["THREADS % WARP_SIZE == 0"]  # the block reduction works in whole warps
THREADS, VEC = KP_TUNE["THREADS"][0], KP_TUNE["VEC"][0]

SRC = r"""
#include <cuda_runtime.h>

template <int V> struct vec;
template <> struct vec<1> {
    typedef float type;
    __device__ static float sq(float v) { return v * v; }
};
template <> struct vec<2> {
    typedef float2 type;
    __device__ static float sq(float2 v) { return v.x * v.x + v.y * v.y; }
};
template <> struct vec<4> {
    typedef float4 type;
    __device__ static float sq(float4 v) { return (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w); }
};

__global__ void __launch_bounds__(THREADS) rmsnorm(const float *x, const float *w, float *y, int cols, float eps)
{
    typedef typename vec<VEC>::type T;
    __shared__ float warp_sums[THREADS / 32];
    __shared__ float rinv;
    const T *row = (const T *)(x + (long)blockIdx.x * cols);
    const int n = cols / VEC;
    float s = 0.0f;
    for (int j = threadIdx.x; j < n; j += THREADS)
        s += vec<VEC>::sq(row[j]);
    for (int off = 16; off > 0; off /= 2)
        s += __shfl_down_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0)
        warp_sums[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < THREADS / 32 ? warp_sums[threadIdx.x] : 0.0f;
        for (int off = 16; off > 0; off /= 2)
            s += __shfl_down_sync(0xffffffffu, s, off);
        if (threadIdx.x == 0)
            rinv = rsqrtf(s / cols + eps);
    }
    __syncthreads();
    const float r = rinv;
    const float *xr = x + (long)blockIdx.x * cols;
    float *yr = y + (long)blockIdx.x * cols;
    for (int j = threadIdx.x * VEC; j < cols; j += THREADS * VEC)
        for (int k = 0; k < VEC; k++)
            yr[j + k] = xr[j + k] * r * w[j + k];
}

extern "C" int rmsnorm_rows(const float *x, const float *w, float *y, int rows, int cols, float eps,
                            cudaStream_t stream)
{
    if (cols % VEC)
        return (int)cudaErrorInvalidValue;
    rmsnorm<<<rows, THREADS, 0, stream>>>(x, w, y, cols, eps);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="rmsnorm_rows",
                functions={"rmsnorm_rows": ["ptr", "ptr", "ptr", "i32", "i32", "f32", "stream"]},
                extra_flags=["-DTHREADS=%d" % THREADS, "-DVEC=%d" % VEC])


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        lib.rmsnorm_rows(x, self.weight.contiguous(), y, x.shape[0], x.shape[1], self.eps)
        return y
