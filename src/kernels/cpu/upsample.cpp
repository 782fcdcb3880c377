#include "kernels/cpu/upsample.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

// ATen's area_pixel_compute_scale: the input distance of one output step.
template <class T>
T pixel_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale_factor) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  if (scale_factor && *scale_factor > 0) return static_cast<T>(1.0 / *scale_factor);
  return static_cast<T>(in) / static_cast<T>(out);
}

// For each output index along one dim, the nearest input index (ATen's nearest_idx).
std::vector<int64_t> nearest_sources(int64_t in, int64_t out, std::optional<double> factor) {
  std::vector<int64_t> src(out);
  const float scale = pixel_scale<float>(in, out, false, factor);
  for (int64_t o = 0; o < out; ++o) {
    if (out == in)
      src[o] = o;
    else if (out == 2 * in)
      src[o] = o >> 1;
    else
      src[o] = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * scale)), in - 1);
  }
  return src;
}

// The two input indices and their weights for each output index along one dim.
template <class T>
struct Taps {
  std::vector<int64_t> lo, hi;
  std::vector<T> w_lo, w_hi;
};
template <class T>
Taps<T> linear_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> factor) {
  Taps<T> t{std::vector<int64_t>(out), std::vector<int64_t>(out), std::vector<T>(out),
            std::vector<T>(out)};
  const T scale = pixel_scale<T>(in, out, align_corners, factor);
  for (int64_t o = 0; o < out; ++o) {
    const T src = align_corners ? scale * static_cast<T>(o)
                                : std::max(scale * (static_cast<T>(o) + T(0.5)) - T(0.5), T(0));
    const int64_t lo = std::min(static_cast<int64_t>(src), in - 1);
    t.lo[o] = lo;
    t.hi[o] = lo + (lo < in - 1 ? 1 : 0);
    t.w_hi[o] = src - static_cast<T>(lo);
    t.w_lo[o] = T(1) - t.w_hi[o];
  }
  return t;
}

}  // namespace

void upsample_nearest2d_out(const Tensor& self, std::optional<double> scale_h,
                            std::optional<double> scale_w, const Tensor& out) {
  if (out.int_numel() == 0) return;
  const Tensor x = contiguous_as(self, self.dtype());
  const int64_t planes = x.int_size(0) * x.int_size(1);
  const int64_t ih = x.int_size(2), iw = x.int_size(3);
  const int64_t oh = out.int_size(2), ow = out.int_size(3);
  const std::vector<int64_t> ys = nearest_sources(ih, oh, scale_h);
  const std::vector<int64_t> xs = nearest_sources(iw, ow, scale_w);
  const size_t es = static_cast<size_t>(x.element_size());
  const Tensor y =
      out.is_contiguous() ? out : Tensor::empty_contiguous(out.int_sizes(), out.dtype());
  const char* src = static_cast<const char*>(x.raw_data());
  char* dst = static_cast<char*>(y.raw_data());
  parallel_for(0, planes * oh, std::max<int64_t>(1, 16384 / ow), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t plane = r / oh, oy = r % oh;
      const char* row = src + (plane * ih + ys[oy]) * iw * es;
      char* to = dst + r * ow * es;
      for (int64_t ox = 0; ox < ow; ++ox) std::memcpy(to + ox * es, row + xs[ox] * es, es);
    }
  });
  if (!y.is_same(out)) copy_into(out, y);
}

void upsample_bilinear2d_out(const Tensor& self, bool align_corners,
                             std::optional<double> scale_h, std::optional<double> scale_w,
                             const Tensor& out) {
  if (out.int_numel() == 0) return;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor x = contiguous_as(self, dtype_v<T>);
    const int64_t planes = x.int_size(0) * x.int_size(1);
    const int64_t ih = x.int_size(2), iw = x.int_size(3);
    const int64_t oh = out.int_size(2), ow = out.int_size(3);
    const Taps<T> ty = linear_taps<T>(ih, oh, align_corners, scale_h);
    const Taps<T> tx = linear_taps<T>(iw, ow, align_corners, scale_w);
    write_as<T>(out, [&](T* y) {
      parallel_for(0, planes * oh, std::max<int64_t>(1, 8192 / ow), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const int64_t plane = r / oh, oy = r % oh;
          const T* top = x.data<T>() + (plane * ih + ty.lo[oy]) * iw;
          const T* bottom = x.data<T>() + (plane * ih + ty.hi[oy]) * iw;
          T* row = y + r * ow;
          for (int64_t ox = 0; ox < ow; ++ox) {
            const int64_t l = tx.lo[ox], h = tx.hi[ox];
            row[ox] = ty.w_lo[oy] * (tx.w_lo[ox] * top[l] + tx.w_hi[ox] * top[h]) +
                      ty.w_hi[oy] * (tx.w_lo[ox] * bottom[l] + tx.w_hi[ox] * bottom[h]);
          }
        }
      });
    });
  };
  if (self.dtype() == DType::Float64)
    run(double{});
  else
    run(float{});
}

}  // namespace xport::kernels::cpu
