#include <cute/swizzle_fake.hpp>

__global__ void copy_kernel(float const* in, float* out)
{
  out[threadIdx.x] = in[threadIdx.x];
}
