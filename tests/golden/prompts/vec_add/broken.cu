#include <cuda_runtime.h>
#include "kp_native.h"

__global__ void vec_add4(const float4 *__restrict__ a, const float4 *__restrict__ b, float4 *__restrict__ c, int64_t n4)
{
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

KP_EXPORT int kp_run(const kp_tensor *in, int nin, kp_tensor *out, int nout, kp_stream_t stream)
{
    int64_t n4 = in[0].numel / 4;
    int threads = 256;
    vec_add4<<<(n4 + threads - 1) / threads, threads, 0, stream>>>(in[0].data, in[1].data, out[0].data, n4);
    return (int)cudaGetLastError();
}
