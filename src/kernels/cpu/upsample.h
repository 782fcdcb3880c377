#pragma once
// Spatial resizing of [N, C, H, W] tensors, as ATen's upsample kernels compute it.

#include <optional>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// out[n, c, y, x] = self[n, c, src(y), src(x)], src(d) = min(floor(d * scale), in - 1) in float,
/// scale = 1 / scale_factor when one is given, else in / out (ATen's nearest). Any dtype.
void upsample_nearest2d_out(const Tensor& self, std::optional<double> scale_h,
                            std::optional<double> scale_w, const Tensor& out);
/// Bilinear interpolation between the four nearest input pixels; with align_corners the corner
/// pixels of input and output line up, else pixel centres do (half-pixel offsets). Floating
/// dtypes; reduced ones compute in float.
void upsample_bilinear2d_out(const Tensor& self, bool align_corners,
                             std::optional<double> scale_h, std::optional<double> scale_w,
                             const Tensor& out);

}  // namespace xport::kernels::cpu
