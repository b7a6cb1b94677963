/*! \file
    \brief Fixture: swizzle functors that remove shared-memory bank conflicts.
*/
#pragma once

namespace cute {

// A swizzle: XORs BBits bits of the address, taken SShift bits higher, into the low bits.
template <int BBits, int MBase, int SShift = BBits>
struct Swizzle
{
  static constexpr int num_bits = BBits;
};

// A shared-memory layout composed with a swizzle, conflict-free for 128-byte rows.
template <class Layout>
auto make_swizzled_layout(Layout const& layout)
{
  return Swizzle<3, 4, 3>{};
}

} // namespace cute
