#pragma once
// 3-D pooling kernels over the last three dims of a [C, D, H, W] or [N, C, D, H, W] input. Each
// writes outputs the caller sized (the output's depth, height and width are read from `out`).

#include <array>
#include <optional>

#include "xport/tensor.h"

namespace xport::kernels::cpu {

/// Window geometry of a 3-D pool, each in (depth, height, width) order.
struct Pool3d {
  std::array<int64_t, 3> kernel, stride, pad, dilation = {1, 1, 1};
};

/// Max over each window (the first maximum wins, NaN wins over anything); `indices` (int64, may
/// be undefined) gets the argmax as an index into the input's flattened D*H*W volume, like ATen.
void max_pool3d_out(const Tensor& self, const Pool3d& pool, const Tensor& out,
                    const Tensor& indices);
/// Mean over each window, ATen's avg_pool3d (padding counts unless !count_include_pad).
void avg_pool3d_out(const Tensor& self, const Pool3d& pool, bool count_include_pad,
                    std::optional<int64_t> divisor_override, const Tensor& out);
/// Mean over adaptive windows [floor(o*I/O), ceil((o+1)*I/O)) in each of the three dims.
void adaptive_avg_pool3d_out(const Tensor& self, const Tensor& out);

}  // namespace xport::kernels::cpu
