#pragma once
// Sizes read from a file (safetensors, .npy), checked before a tensor is made of them: a tensor
// with a 0 dim holds no elements, yet its contiguous strides are products of its other dims,
// which can overflow int64 when no element count or byte count in the file does.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace xport {

/// Whether contiguous_strides(sizes) overflows int64 (a 0 or 1 dim scales no stride, as there).
inline bool contiguous_strides_overflow(const std::vector<int64_t>& sizes) {
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 1;) {
    if (__builtin_mul_overflow(running, std::max<int64_t>(sizes[i], 1), &running)) return true;
  }
  return false;
}

}  // namespace xport
