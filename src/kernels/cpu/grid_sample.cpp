#include "kernels/cpu/grid_sample.h"

#include <algorithm>
#include <cmath>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

// A coordinate as a pixel index; a NaN or far-off coordinate (a NaN in the grid) becomes -1,
// outside the image, where a plain cast would be undefined.
int64_t to_pixel(double coord) {
  return std::isfinite(coord) && std::fabs(coord) < 1e15 ? static_cast<int64_t>(coord) : -1;
}

// [-1, 1] to pixel coordinates.
double unnormalize(double coord, int64_t size, bool align_corners) {
  return align_corners ? (coord + 1) / 2 * static_cast<double>(size - 1)
                       : ((coord + 1) * static_cast<double>(size) - 1) / 2;
}

// Into [0, size - 1]; ATen's argument order, so a NaN becomes size - 1.
double clip(double in, int64_t size) {
  return std::min(static_cast<double>(size - 1), std::max(in, 0.0));
}

// Reflects `in` into [twice_low / 2, twice_high / 2].
double reflect(double in, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  const double low = static_cast<double>(twice_low) / 2;
  const double span = static_cast<double>(twice_high - twice_low) / 2;
  in = std::fabs(in - low);
  const double extra = std::fmod(in, span);
  const int64_t flips = to_pixel(std::floor(in / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

// A pixel coordinate after the padding mode (zeros: as it is; bounds are checked on reading).
double pad_coordinate(double coord, int64_t size, GridPadding padding, bool align_corners) {
  if (padding == GridPadding::Border) return clip(coord, size);
  if (padding == GridPadding::Reflection) {
    coord = align_corners ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    return clip(coord, size);
  }
  return coord;
}

// ATen's cubic convolution weights (A = -0.75) for the four taps around t in [0, 1).
void cubic_weights(double t, double w[4]) {
  constexpr double A = -0.75;
  auto near = [](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto far = [](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

template <class T>
void sample(const T* in, const T* grid, T* out, int64_t n, int64_t channels, int64_t h, int64_t w,
            int64_t oh, int64_t ow, GridInterpolation mode, GridPadding padding,
            bool align_corners) {
  const int64_t plane = h * w;
  auto inside = [&](int64_t y, int64_t x) { return y >= 0 && y < h && x >= 0 && x < w; };
  parallel_for(0, n * oh * ow, 256, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t b = p / (oh * ow), pixel = p % (oh * ow);
      const double gx = static_cast<double>(grid[2 * p]);
      const double gy = static_cast<double>(grid[2 * p + 1]);
      const T* image = in + b * channels * plane;
      T* result = out + b * channels * oh * ow + pixel;
      if (mode == GridInterpolation::Bicubic) {
        // Taps around the unpadded coordinate; each tap is padded on its own.
        const double x = unnormalize(gx, w, align_corners), y = unnormalize(gy, h, align_corners);
        const double x0 = std::floor(x), y0 = std::floor(y);
        double wx[4], wy[4];
        cubic_weights(x - x0, wx);
        cubic_weights(y - y0, wy);
        for (int64_t c = 0; c < channels; ++c) {
          double acc = 0;
          for (int j = 0; j < 4; ++j) {
            for (int i = 0; i < 4; ++i) {
              const int64_t tx = to_pixel(pad_coordinate(x0 - 1 + i, w, padding, align_corners));
              const int64_t ty = to_pixel(pad_coordinate(y0 - 1 + j, h, padding, align_corners));
              if (inside(ty, tx))
                acc += static_cast<double>(image[c * plane + ty * w + tx]) * wx[i] * wy[j];
            }
          }
          result[c * oh * ow] = static_cast<T>(acc);
        }
        continue;
      }
      const double x = pad_coordinate(unnormalize(gx, w, align_corners), w, padding, align_corners);
      const double y = pad_coordinate(unnormalize(gy, h, align_corners), h, padding, align_corners);
      if (mode == GridInterpolation::Nearest) {
        const int64_t nx = to_pixel(std::nearbyint(x)), ny = to_pixel(std::nearbyint(y));
        for (int64_t c = 0; c < channels; ++c)
          result[c * oh * ow] = inside(ny, nx) ? image[c * plane + ny * w + nx] : T(0);
        continue;
      }
      const double x0 = std::floor(x), y0 = std::floor(y);
      const double fx = x - x0, fy = y - y0;
      const int64_t ix = to_pixel(x0), iy = to_pixel(y0);
      const double weights[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
      const int64_t xs[4] = {ix, ix + 1, ix, ix + 1}, ys[4] = {iy, iy, iy + 1, iy + 1};
      for (int64_t c = 0; c < channels; ++c) {
        double acc = 0;
        for (int k = 0; k < 4; ++k) {
          if (inside(ys[k], xs[k]))
            acc += static_cast<double>(image[c * plane + ys[k] * w + xs[k]]) * weights[k];
        }
        result[c * oh * ow] = static_cast<T>(acc);
      }
    }
  });
}

}  // namespace

void grid_sampler_2d_out(const Tensor& input, const Tensor& grid, GridInterpolation mode,
                         GridPadding padding, bool align_corners, const Tensor& out) {
  if (out.int_numel() == 0) return;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor x = contiguous_as(input, dtype_v<T>);
    const Tensor g = contiguous_as(grid, dtype_v<T>);
    write_as<T>(out, [&](T* y) {
      sample<T>(x.data<T>(), g.data<T>(), y, input.int_size(0), input.int_size(1),
                input.int_size(2), input.int_size(3), out.int_size(2), out.int_size(3), mode,
                padding, align_corners);
    });
  };
  visit_floating(input.dtype(), run);
}

}  // namespace xport::kernels::cpu
