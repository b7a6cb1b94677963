/*! \file
    \brief Fixture: warpgroup matrix multiply-accumulate (GMMA) atoms for sm90.
*/
#pragma once

namespace cute {
namespace SM90::GMMA {

enum class Major { K = 0, MN = 1 };

// GMMA 64x128x16 F32 += BF16 * BF16, both operands from shared memory.
template <Major tnspA, Major tnspB>
struct MMA_64x128x16_F32BF16BF16_SS
{
  using DRegisters = float[64];

  __device__ static void
  fma(unsigned long long const& desc_a, unsigned long long const& desc_b, float* d)
  {
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 ...;");
  }
};

} // namespace SM90::GMMA

template <SM90::GMMA::Major tnspA, SM90::GMMA::Major tnspB>
using SM90_64x128x16_F32BF16BF16_SS = SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS<tnspA, tnspB>;

// The warpgroup fence before a batch of GMMAs.
__device__ inline void warpgroup_arrive()
{
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

} // namespace cute
