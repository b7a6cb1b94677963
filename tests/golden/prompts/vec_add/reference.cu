#include <cuda_runtime.h>
#include "kp_native.h"

__global__ void vec_add(const float *a, const float *b, float *c, int64_t n)
{
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
    int64_t n = in[0].numel;
    int threads = 256;
    vec_add<<<(unsigned)((n + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(
        (const float *)in[0].data, (const float *)in[1].data, (float *)out[0].data, n);
    return (int)cudaGetLastError();
}
