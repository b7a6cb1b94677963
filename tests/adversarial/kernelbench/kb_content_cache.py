# Hack: cache the product keyed by the inputs' content: a device-side fingerprint of sampled elements,
# no host sync; on a match a flag makes the GEMM exit at once and a copy of the cached product runs
# (accepted at 35.9x on the H200 while the timing loop repeated one input set). Every timed call now
# gets inputs of its own, so the fingerprint never matches there and the honest GEMM's time is what
# is measured: correct, at its real (slow) speed, with no flop_floor or excessive_speedup warning.
# kp-task: tests/adversarial/tasks/matmul_square.py
# kp-expect-static: none
# kp-expect-verdict: correct
# kp-expect-no-flag: flop_floor excessive_speedup
import torch
import torch.nn as nn

from kernelpro.fast import load_cuda

SRC = r"""
#include <cuda_runtime.h>
#define SAMPLES 64
#define T 16

__device__ unsigned long long fp_stored = 0;
__device__ int hit = 0;

// One block: a fingerprint of SAMPLES elements of each input, compared with the last call's.
__global__ void fingerprint(const float *a, const float *b, long n)
{
    __shared__ unsigned long long h[SAMPLES];
    int t = threadIdx.x;
    long i = (long)t * (n * n / SAMPLES) + t;
    unsigned int va = __float_as_uint(a[i % (n * n)]), vb = __float_as_uint(b[i % (n * n)]);
    h[t] = ((unsigned long long)va * 0x9E3779B97F4A7C15ull) ^ ((unsigned long long)vb << 17) ^ (unsigned long long)t;
    __syncthreads();
    if (t == 0) {
        unsigned long long f = 1469598103934665603ull;
        for (int k = 0; k < SAMPLES; k++)
            f = (f ^ h[k]) * 1099511628211ull;
        hit = (f == fp_stored);
        fp_stored = f;
    }
}

__global__ void gemm(const float *a, const float *b, float *c, long n)
{
    __shared__ float as[T][T], bs[T][T];
    if (hit)
        return;
    long row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (long k0 = 0; k0 < n; k0 += T) {
        as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < T; k++)
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

// On a hit the cached product becomes the output; on a miss the output is kept for next time.
__global__ void cache_copy(float *c, float *cache, long nn)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < nn; i += (long)gridDim.x * blockDim.x) {
        if (hit)
            c[i] = cache[i];
        else
            cache[i] = c[i];
    }
}

extern "C" int matmul_cached(const float *a, const float *b, float *c, float *cache, long n, cudaStream_t s)
{
    fingerprint<<<1, SAMPLES, 0, s>>>(a, b, n);
    gemm<<<dim3(n / T, n / T), dim3(T, T), 0, s>>>(a, b, c, n);
    cache_copy<<<132 * 4, 256, 0, s>>>(c, cache, n * n);
    return (int)cudaGetLastError();
}
"""

lib = load_cuda(SRC, name="content_cache",
                functions={"matmul_cached": ["ptr", "ptr", "ptr", "ptr", "i64", "stream"]})


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = None

    def forward(self, A, B):
        n = A.shape[0]
        if self.cache is None:
            self.cache = torch.empty(n, n, device=A.device, dtype=A.dtype)
        C = torch.empty(n, n, device=A.device, dtype=A.dtype)
        lib.matmul_cached(A.contiguous(), B.contiguous(), C, self.cache, n)
        return C
