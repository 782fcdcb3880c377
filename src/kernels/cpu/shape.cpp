#include "kernels/cpu/shape.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/pointwise.h"

namespace xport::kernels::cpu {
namespace {

std::vector<int64_t> byte_strides(const std::vector<int64_t>& strides, int64_t element_size) {
  std::vector<int64_t> out(strides.size());
  for (size_t i = 0; i < strides.size(); ++i) out[i] = strides[i] * element_size;
  return out;
}

char* data_of(const Tensor& t) { return static_cast<char*>(t.raw_data()); }

int64_t product(const std::vector<int64_t>& v, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= v[i];
  return p;
}

// memcpy of `nbytes`, split across threads when large.
void parallel_memcpy(char* dst, const char* src, int64_t nbytes) {
  parallel_for(0, nbytes, 1 << 20, [&](int64_t b, int64_t e) {
    std::memcpy(dst + b, src + b, static_cast<size_t>(e - b));
  });
}

}  // namespace

void copy_row(char* dst, int64_t dst_stride, const char* src, int64_t src_stride, int64_t n,
              int64_t element_size) {
  if (dst_stride == element_size && src_stride == element_size) {
    std::memcpy(dst, src, static_cast<size_t>(n * element_size));
    return;
  }
  visit_element_size(element_size, [&](auto tag) {
    using U = decltype(tag);
    for (int64_t i = 0; i < n; ++i) {
      U v;
      std::memcpy(&v, src + i * src_stride, sizeof(U));
      std::memcpy(dst + i * dst_stride, &v, sizeof(U));
    }
  });
}

void copy_strided(const std::vector<int64_t>& sizes, char* dst,
                  const std::vector<int64_t>& dst_strides, const char* src,
                  const std::vector<int64_t>& src_strides, int64_t element_size) {
  const StridedLoop<2> loop(
      sizes, {dst, const_cast<char*>(src)},
      {byte_strides(dst_strides, element_size), byte_strides(src_strides, element_size)});
  if (loop.numel() == 0) return;
  loop.parallel(kCopyGrain,
                [&](const std::array<char*, 2>& p, int64_t n, const std::array<int64_t, 2>& st) {
                  copy_row(p[0], st[0], p[1], st[1], n, element_size);
                });
}

void copy_tensor(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() != src.dtype()) {
    copy_into(dst, src);
    return;
  }
  const std::vector<int64_t> sizes = dst.int_sizes();
  const std::vector<int64_t> ss = src.int_sizes();
  const std::vector<int64_t> st = src.int_strides();
  std::vector<int64_t> strides(sizes.size(), 0);
  const size_t lead = sizes.size() - ss.size();
  for (size_t d = 0; d < ss.size(); ++d) strides[lead + d] = ss[d] == 1 ? 0 : st[d];
  copy_strided(sizes, data_of(dst), dst.int_strides(), data_of(src), strides, dst.element_size());
}

Tensor strided_view(const Tensor& base, const std::vector<int64_t>& sizes,
                    const std::vector<int64_t>& strides, int64_t storage_offset) {
  TensorMeta meta;
  meta.sizes.assign(sizes.begin(), sizes.end());
  meta.strides.assign(strides.begin(), strides.end());
  meta.storage_offset = storage_offset;
  meta.dtype = base.dtype();
  return Tensor::make(base.storage(), std::move(meta));
}

void cat_out(std::span<const Tensor> inputs, int64_t dim, const Tensor& out) {
  const std::vector<int64_t> out_sizes = out.int_sizes();
  const int64_t es = out.element_size();
  const int64_t outer = product(out_sizes, 0, dim);
  const int64_t inner = product(out_sizes, dim + 1, out_sizes.size());
  bool fast = out.is_contiguous();
  for (const Tensor& t : inputs) fast = fast && t.dtype() == out.dtype() && t.is_contiguous();
  if (!fast) {
    const std::vector<int64_t> out_strides = out.int_strides();
    int64_t offset = 0;
    for (const Tensor& t : inputs) {
      std::vector<int64_t> sizes = out_sizes;
      sizes[dim] = t.int_size(dim);
      const int64_t start = *out.storage_offset().maybe_int() + offset * out_strides[dim];
      copy_tensor(strided_view(out, sizes, out_strides, start), t);
      offset += sizes[dim];
    }
    return;
  }
  // Contiguous: each input is `outer` blocks of size(dim) * inner elements,
  // placed side by side.
  std::vector<const char*> src(inputs.size());
  std::vector<int64_t> block(inputs.size()), start(inputs.size());
  int64_t row = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    src[i] = data_of(inputs[i]);
    block[i] = inputs[i].int_size(dim) * inner * es;
    start[i] = row;
    row += block[i];
  }
  char* dst = data_of(out);
  if (outer == 1) {
    for (size_t i = 0; i < inputs.size(); ++i) parallel_memcpy(dst + start[i], src[i], block[i]);
    return;
  }
  parallel_for(0, outer, std::max<int64_t>(1, kCopyGrain * 4 / std::max<int64_t>(row, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t o = b; o < e; ++o) {
                   for (size_t i = 0; i < inputs.size(); ++i) {
                     std::memcpy(dst + o * row + start[i], src[i] + o * block[i],
                                 static_cast<size_t>(block[i]));
                   }
                 }
               });
}

void repeat_out(const Tensor& self, const std::vector<int64_t>& repeats, const Tensor& out) {
  // out, seen as [r0, s0, r1, s1, ...], is self broadcast along the r dims.
  const size_t n = repeats.size();
  const size_t lead = n - static_cast<size_t>(self.dim());
  const std::vector<int64_t> ss = self.int_sizes(), st = self.int_strides();
  const std::vector<int64_t> os = out.int_strides();
  std::vector<int64_t> sizes, dst_strides, src_strides;
  for (size_t d = 0; d < n; ++d) {
    const int64_t s = d < lead ? 1 : ss[d - lead];
    sizes.insert(sizes.end(), {repeats[d], s});
    dst_strides.insert(dst_strides.end(), {s * os[d], os[d]});
    src_strides.insert(src_strides.end(), {0, d < lead ? 0 : st[d - lead]});
  }
  copy_strided(sizes, data_of(out), dst_strides, data_of(self), src_strides, self.element_size());
}

void flip_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  const std::vector<int64_t> sizes = self.int_sizes();
  std::vector<int64_t> strides = self.int_strides();
  const char* src = data_of(self);
  for (int64_t d : dims) {
    if (sizes[d] == 0) return;
    src += (sizes[d] - 1) * strides[d] * self.element_size();
    strides[d] = -strides[d];
  }
  copy_strided(sizes, data_of(out), out.int_strides(), src, strides, self.element_size());
}

void constant_pad_out(const Tensor& self, const std::vector<int64_t>& pad, const Scalar& value,
                      const Tensor& out) {
  const std::vector<int64_t> sizes = self.int_sizes();
  const int64_t ndim = self.dim();
  bool grows = false;
  for (int64_t p : pad) grows = grows || p > 0;
  if (grows) fill_out(value, out);
  // The part of self that survives cropping, and where it lands in out.
  std::vector<int64_t> copy_sizes = sizes;
  const char* src = data_of(self);
  char* dst = data_of(out);
  const std::vector<int64_t> st = self.int_strides(), os = out.int_strides();
  const int64_t es = self.element_size();
  for (size_t i = 0; 2 * i < pad.size(); ++i) {
    const int64_t d = ndim - 1 - static_cast<int64_t>(i);
    const int64_t left = pad[2 * i], right = pad[2 * i + 1];
    copy_sizes[d] = sizes[d] + std::min<int64_t>(left, 0) + std::min<int64_t>(right, 0);
    if (copy_sizes[d] <= 0) return;
    src += std::max<int64_t>(-left, 0) * st[d] * es;
    dst += std::max<int64_t>(left, 0) * os[d] * es;
  }
  copy_strided(copy_sizes, dst, os, src, st, es);
}

void mode_pad_out(const Tensor& self, const std::vector<int64_t>& pad, bool reflect,
                  const Tensor& out) {
  const int64_t ndim = self.dim();
  const std::vector<int64_t> in_sizes = self.int_sizes(), out_sizes = out.int_sizes();
  if (out.int_numel() == 0) return;
  // For each dim, the input index of every output index (the identity for unpadded dims).
  std::vector<std::vector<int64_t>> source(ndim);
  for (int64_t d = 0; d < ndim; ++d) {
    const size_t pair = static_cast<size_t>(ndim - 1 - d);
    const int64_t left = 2 * pair < pad.size() ? pad[2 * pair] : 0;
    const int64_t n = in_sizes[d];
    source[d].resize(out_sizes[d]);
    for (int64_t o = 0; o < out_sizes[d]; ++o) {
      int64_t i = o - left;
      if (reflect) {
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
      } else {
        i = std::clamp<int64_t>(i, 0, n - 1);
      }
      source[d][o] = i;
    }
  }
  const int64_t es = self.element_size();
  const std::vector<int64_t> st = byte_strides(self.int_strides(), es);
  const std::vector<int64_t> os = byte_strides(out.int_strides(), es);
  const char* src = data_of(self);
  char* dst = data_of(out);
  const int64_t width = out_sizes[ndim - 1];
  const int64_t rows = out.int_numel() / width;
  parallel_for(0, rows, std::max<int64_t>(1, kCopyGrain / width), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t rest = r, from = 0, to = 0;
      for (int64_t d = ndim - 2; d >= 0; --d) {
        const int64_t o = rest % out_sizes[d];
        rest /= out_sizes[d];
        from += source[d][o] * st[d];
        to += o * os[d];
      }
      for (int64_t j = 0; j < width; ++j) {
        std::memcpy(dst + to + j * os[ndim - 1], src + from + source[ndim - 1][j] * st[ndim - 1],
                    static_cast<size_t>(es));
      }
    }
  });
}

void triangle_out(const Tensor& self, int64_t diagonal, bool upper, const Tensor& out) {
  const std::vector<int64_t> sizes = self.int_sizes(), st = self.int_strides();
  const int64_t ndim = self.dim();
  const int64_t m = sizes[ndim - 2], n = sizes[ndim - 1];
  const int64_t es = self.element_size();
  const int64_t rows = product(sizes, 0, ndim - 1);
  const std::vector<int64_t> batch_sizes(sizes.begin(), sizes.end() - 2);
  char* dst = data_of(out);
  const char* src = data_of(self);
  parallel_for(0, rows, std::max<int64_t>(1, kCopyGrain / std::max<int64_t>(n, 1)),
               [&](int64_t b, int64_t e) {
                 for (int64_t r = b; r < e; ++r) {
                   const int64_t i = r % m;
                   // Offset of this row in self: unravel the batch index.
                   int64_t rest = r / m, offset = i * st[ndim - 2];
                   for (int64_t d = ndim - 3; d >= 0; --d) {
                     offset += (rest % sizes[d]) * st[d];
                     rest /= sizes[d];
                   }
                   const int64_t lo = upper ? std::clamp<int64_t>(i + diagonal, 0, n) : 0;
                   const int64_t hi = upper ? n : std::clamp<int64_t>(i + diagonal + 1, 0, n);
                   char* row = dst + r * n * es;
                   std::memset(row, 0, static_cast<size_t>(n * es));
                   if (hi > lo) {
                     copy_row(row + lo * es, es, src + (offset + lo * st[ndim - 1]) * es,
                              st[ndim - 1] * es, hi - lo, es);
                   }
                 }
               });
}

}  // namespace xport::kernels::cpu
