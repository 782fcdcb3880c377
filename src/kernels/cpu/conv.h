#pragma once
// 2-D convolution (NCHW). float32 runs on oneDNN's convolution primitive (cached per shape);
// 16-bit floats compute in float32; float64 and integers use a direct loop.

#include <array>
#include <cstdint>

#include "xport/tensor.h"

namespace xport::kernels::cpu {

struct Conv2dParams {
  std::array<int64_t, 2> stride = {1, 1};
  std::array<int64_t, 2> padding = {0, 0};
  std::array<int64_t, 2> dilation = {1, 1};
  int64_t groups = 1;
};

/// out [N, O, OH, OW] = conv(input [N, C, H, W], weight [O, C / groups, KH, KW]) + bias [O]
/// (bias may be undefined). The caller has validated the shapes and sized `out`.
void conv2d_out(const Tensor& input, const Tensor& weight, const Tensor& bias,
                const Conv2dParams& params, const Tensor& out);

}  // namespace xport::kernels::cpu
