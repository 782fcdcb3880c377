#pragma once
// Data-movement kernels (cat, repeat, flip, pad, triangles) and the strided
// byte-copy engine they share with the index and sort kernels. Everything here
// moves elements without converting them, so most loops work on bytes by
// element size.

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "kernels/cpu/parallel.h"
#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// Items per parallel chunk for copy-like loops (bytes moved are cheap; threads
/// are not).
inline constexpr int64_t kCopyGrain = 65536;

/// Calls fn(U{}) with U an unsigned integer type of `element_size` bytes (1, 2,
/// 4 or 8).
template <class Fn>
decltype(auto) visit_element_size(int64_t element_size, Fn&& fn) {
  switch (element_size) {
    case 1:
      return fn(uint8_t{});
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    default:
      return fn(uint64_t{});
  }
}

/// A loop over `sizes` for N operands given as base pointers and byte strides
/// (negative strides allowed). Dims are coalesced where every operand allows
/// it; the innermost dim is handed to the callback as a row: fn(ptrs, n,
/// inner_strides).
template <int N>
class StridedLoop {
 public:
  StridedLoop(const std::vector<int64_t>& sizes, std::array<char*, N> data,
              const std::array<std::vector<int64_t>, N>& strides)
      : data_(data) {
    const int64_t ndim = static_cast<int64_t>(sizes.size());
    for (int64_t d = ndim - 1; d >= 0; --d) {
      numel_ *= sizes[d];
      if (sizes[d] == 1) continue;
      std::array<int64_t, N> st;
      for (int k = 0; k < N; ++k) st[k] = strides[k][d];
      if (!sizes_.empty()) {
        bool mergeable = true;
        for (int k = 0; k < N; ++k)
          mergeable = mergeable && st[k] == strides_.front()[k] * sizes_.front();
        if (mergeable) {
          sizes_.front() *= sizes[d];
          continue;
        }
      }
      sizes_.insert(sizes_.begin(), sizes[d]);
      strides_.insert(strides_.begin(), st);
    }
    if (sizes_.empty()) {
      sizes_.push_back(1);
      strides_.push_back({});
    }
  }

  int64_t numel() const { return numel_; }
  /// The coalesced innermost row length.
  int64_t inner_size() const { return sizes_.back(); }
  const std::array<int64_t, N>& inner_strides() const { return strides_.back(); }

  /// Runs fn over the flat positions [begin, end) in row-major order.
  template <class Fn>
  void run(int64_t begin, int64_t end, const Fn& fn) const {
    run_from(data_, begin, end, fn);
  }

  /// Same as run, with other base pointers (the same layout placed elsewhere).
  template <class Fn>
  void run_from(const std::array<char*, N>& base, int64_t begin, int64_t end, const Fn& fn) const {
    const int64_t ndim = static_cast<int64_t>(sizes_.size());
    std::vector<int64_t> index(ndim, 0);
    int64_t rest = begin;
    for (int64_t d = ndim - 1; d >= 0; --d) {
      index[d] = rest % sizes_[d];
      rest /= sizes_[d];
    }
    const std::array<int64_t, N>& inner = strides_.back();
    for (int64_t pos = begin; pos < end;) {
      std::array<char*, N> ptr = base;
      for (int64_t d = 0; d < ndim; ++d)
        for (int k = 0; k < N; ++k) ptr[k] += index[d] * strides_[d][k];
      const int64_t len = std::min(sizes_[ndim - 1] - index[ndim - 1], end - pos);
      fn(ptr, len, inner);
      pos += len;
      index[ndim - 1] += len;
      for (int64_t d = ndim - 1; d > 0 && index[d] >= sizes_[d]; --d) {
        index[d] = 0;
        ++index[d - 1];
      }
    }
  }

  /// Runs fn over every position, split across threads in chunks of at least
  /// `grain`.
  template <class Fn>
  void parallel(int64_t grain, const Fn& fn) const {
    parallel_for(0, numel_, grain, [&](int64_t b, int64_t e) { run(b, e, fn); });
  }

 private:
  std::array<char*, N> data_;
  std::vector<int64_t> sizes_;
  std::vector<std::array<int64_t, N>> strides_;
  int64_t numel_ = 1;
};

/// Copies `n` elements of `element_size` bytes between strided rows (byte
/// strides).
void copy_row(char* dst, int64_t dst_stride, const char* src, int64_t src_stride, int64_t n,
              int64_t element_size);

/// dst[i] = src[i] over `sizes`, both given by base pointer and element strides
/// (negative strides allowed: flip uses them). Same element type; contiguous
/// runs are memcpy'd.
void copy_strided(const std::vector<int64_t>& sizes, char* dst,
                  const std::vector<int64_t>& dst_strides, const char* src,
                  const std::vector<int64_t>& src_strides, int64_t element_size);

/// Copies src into dst: same shape after broadcasting src, any dtypes
/// (converting when they differ; the same-dtype path moves bytes only).
void copy_tensor(const Tensor& dst, const Tensor& src);

/// A view of `base`'s storage with the given layout (for writing into part of
/// an output).
Tensor strided_view(const Tensor& base, const std::vector<int64_t>& sizes,
                    const std::vector<int64_t>& strides, int64_t storage_offset);

/// Concatenates `inputs` (same rank, matching sizes but at `dim`) along `dim`
/// into `out`; inputs whose dtype differs from out's are converted.
void cat_out(std::span<const Tensor> inputs, int64_t dim, const Tensor& out);
/// out = self tiled `repeats` times per dim (repeats.size() >= self.dim();
/// leading entries add new dims).
void repeat_out(const Tensor& self, const std::vector<int64_t>& repeats, const Tensor& out);
/// out = self reversed along `dims`.
void flip_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
/// out = self padded (or cropped, for negative entries) per ATen's
/// constant_pad_nd `pad` list (pairs from the last dim backwards), new places
/// filled with `value`.
void constant_pad_out(const Tensor& self, const std::vector<int64_t>& pad, const Scalar& value,
                      const Tensor& out);
/// out = self padded by reflecting (reflect = true: `3 2 | 1 2 3 | 2 1`) or repeating the edge
/// (`1 1 | 1 2 3 | 3 3`), per ATen's `pad` list (pairs from the last dim backwards); negative
/// entries crop. The caller checked that every index lands inside self.
void mode_pad_out(const Tensor& self, const std::vector<int64_t>& pad, bool reflect,
                  const Tensor& out);
/// triu (upper = true) or tril of the last two dims, other elements zeroed.
void triangle_out(const Tensor& self, int64_t diagonal, bool upper, const Tensor& out);

}  // namespace xport::kernels::cpu
