#pragma once
// 2-D pooling kernels over the last two dims of a [C, H, W] or [N, C, H, W]
// input. Each writes outputs the caller sized (output H and W are read from
// `out`).

#include <optional>

#include "xport/tensor.h"

namespace xport::kernels::cpu {

/// Window geometry of a 2-D pool, in (height, width) pairs.
struct Pool2d {
  int64_t kernel_h, kernel_w;
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
  int64_t dilation_h = 1, dilation_w = 1;
};

/// Max over each window (NaN wins); `indices` (int64, may be undefined) gets
/// the argmax as an index into the input's flattened H*W plane, like ATen.
void max_pool2d_out(const Tensor& self, const Pool2d& pool, const Tensor& out,
                    const Tensor& indices);
/// Mean over each window, ATen's avg_pool2d (padding counts unless
/// !count_include_pad).
void avg_pool2d_out(const Tensor& self, const Pool2d& pool, bool count_include_pad,
                    std::optional<int64_t> divisor_override, const Tensor& out);
/// Mean over adaptive windows [floor(o*I/O), ceil((o+1)*I/O)).
void adaptive_avg_pool2d_out(const Tensor& self, const Tensor& out);

}  // namespace xport::kernels::cpu
