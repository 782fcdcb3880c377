#pragma once
// grid_sampler_2d: each output pixel samples the input where the grid points, as ATen's CPU
// kernel does (the same unnormalisation, padding and interpolation arithmetic).

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

enum class GridInterpolation { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class GridPadding { Zeros = 0, Border = 1, Reflection = 2 };

/// out [N, C, Ho, Wo] = input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x then y, -1 and 1
/// the edges: the outer pixels' corners, or with align_corners their centres). float32 / float64.
void grid_sampler_2d_out(const Tensor& input, const Tensor& grid, GridInterpolation mode,
                         GridPadding padding, bool align_corners, const Tensor& out);

}  // namespace xport::kernels::cpu
