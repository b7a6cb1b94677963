/*! \file
    \brief Fixture: TMA copies from global to shared memory.
*/
#pragma once

#include <cute/arch/mma_fake_sm90.hpp>

namespace cute {

/// The TMA load operation: one bulk tensor copy per call, completion on an mbarrier.
struct SM90_TMA_LOAD
{
  __device__ static void copy(void const* desc, unsigned long long* mbar, void* smem, int x, int y);
};

/// Builds a TMA copy atom for a global tensor and a shared-memory layout.
template <class CopyOp, class GTensor, class SLayout>
auto
make_tma_atom(CopyOp const& op, GTensor const& gtensor, SLayout const& slayout)
{
  return op;
}

} // namespace cute
