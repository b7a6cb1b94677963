/*! \file
    \brief Fixture example: a warp-specialized Hopper GEMM with TMA loads and GMMA.

    Longer text that the description leaves out.
*/
#include <cute/atom/copy_fake_sm90_tma.hpp>

// The mainloop: one producer warp issues TMA, consumer warpgroups run GMMA.
template <class T>
__global__ void fake_gemm_kernel(T const* a, T const* b, T* c, int k)
{
  cute::warpgroup_arrive();
}

int main() { return 0; }
