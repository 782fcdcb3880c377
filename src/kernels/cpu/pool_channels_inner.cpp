// Max pooling in the layouts the runtime passes between convolutions, channels innermost:
// 8-bit values NHWC (between integer convolutions) and float32 in the packed convolutions'
// layout ([N, C / B, H, W, B] for oneDNN's channel block B, or NHWC). One output pixel at a
// time, its B channels contiguous: a maximum per channel over the window's pixels, which the
// compiler vectorizes (a fixed B of 16 or 8 for float32).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/pool.h"
#include "xport/core/error.h"

namespace xport::kernels::cpu {
namespace {

// The larger of o and x, NaN winning as in max_pool_out (ATen's rule); for integers, the max.
template <class T>
inline T pool_max(T o, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    // Both compares always, no branch: the loop over a block vectorizes to compares and a blend.
    const bool take = (x > o) | (x != x);  // NOLINT(misc-redundant-expression): x != x is NaN
    return take ? x : o;
  } else {
    return std::max(o, x);
  }
}

template <class T>
constexpr T kLowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                           : std::numeric_limits<T>::lowest();

// Output rows [begin, end) of planes of `block` channels innermost; row = plane * out_h + oh,
// a plane being one image (NHWC) or one channel block of one image.
template <class T, int64_t kBlock>
void pool_rows(const T* in, T* out, int64_t block, int64_t in_h, int64_t in_w, int64_t out_h,
               int64_t out_w, const Pool2d& p, int64_t begin, int64_t end) {
  const int64_t b = kBlock > 0 ? kBlock : block;
  for (int64_t row = begin; row < end; ++row) {
    const int64_t plane = row / out_h, oh = row % out_h;
    for (int64_t ow = 0; ow < out_w; ++ow) {
      T* o = out + (row * out_w + ow) * b;
      std::fill(o, o + b, kLowest<T>);
      for (int64_t kh = 0; kh < p.kernel[0]; ++kh) {
        const int64_t ih = oh * p.stride[0] - p.pad[0] + kh * p.dilation[0];
        if (ih < 0 || ih >= in_h) continue;
        for (int64_t kw = 0; kw < p.kernel[1]; ++kw) {
          const int64_t iw = ow * p.stride[1] - p.pad[1] + kw * p.dilation[1];
          if (iw < 0 || iw >= in_w) continue;
          const T* x = in + ((plane * in_h + ih) * in_w + iw) * b;
          for (int64_t c = 0; c < b; ++c) o[c] = pool_max(o[c], x[c]);
        }
      }
    }
  }
}

template <class T>
void pool_planes(const Tensor& self, const Pool2d& pool, int64_t block, const Tensor& out) {
  const std::vector<int64_t> in = self.int_sizes(), o = out.int_sizes();
  const int64_t rows = o[0] * (o[1] / block) * o[2];
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(block * o[3], 1));
  const auto* x = static_cast<const T*>(self.raw_data());
  auto* y = static_cast<T*>(out.raw_data());
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    if (block == 16) {
      pool_rows<T, 16>(x, y, block, in[2], in[3], o[2], o[3], pool, begin, end);
    } else if (block == 8) {
      pool_rows<T, 8>(x, y, block, in[2], in[3], o[2], o[3], pool, begin, end);
    } else {
      pool_rows<T, 0>(x, y, block, in[2], in[3], o[2], o[3], pool, begin, end);
    }
  });
}

}  // namespace

void max_pool2d_channels_inner(const Tensor& self, const Pool2d& pool, int64_t block,
                               const Tensor& out) {
  XPORT_CHECK(self.dim() == 4 && out.dim() == 4 && self.dtype() == out.dtype() &&
                  self.is_contiguous() && out.is_contiguous() && block > 0 &&
                  self.int_sizes()[1] % block == 0 && out.int_sizes()[1] == self.int_sizes()[1],
              Internal, "max_pool2d_channels_inner: takes contiguous [N, C, H, W] tensors of one "
              "dtype whose channels are whole blocks");
  switch (self.dtype()) {
    case DType::UInt8: return pool_planes<uint8_t>(self, pool, block, out);
    case DType::Int8: return pool_planes<int8_t>(self, pool, block, out);
    case DType::Float32: return pool_planes<float>(self, pool, block, out);
    default:
      XPORT_FAIL(Internal, "max_pool2d_channels_inner: takes uint8, int8 or float32, got ",
                 dtype_name(self.dtype()));
  }
}

}  // namespace xport::kernels::cpu
