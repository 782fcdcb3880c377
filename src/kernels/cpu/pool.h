#pragma once
// 2-D pooling kernels over the last two dims of a [C, H, W] or [N, C, H, W]
// input. Each writes outputs the caller sized (output H and W are read from
// `out`).

#include <optional>

#include "xport/tensor.h"

namespace xport::kernels::cpu {

/// Adaptive window o of out_size over in_size, [floor(o*I/O), ceil((o+1)*I/O)): ATen's
/// start/end index arithmetic, exact in integers.
inline int64_t adaptive_start(int64_t o, int64_t out_size, int64_t in_size) {
  return (o / out_size) * in_size + ((o % out_size) * in_size) / out_size;
}
inline int64_t adaptive_end(int64_t o, int64_t out_size, int64_t in_size) {
  return 1 + ((o + 1) * in_size - 1) / out_size;
}

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

// Backward (gradients): grad_input (shaped as the pool's input) from grad_output (shaped as
// its output).
/// Each output's gradient goes to the input its max came from (`indices`, as max_pool2d_out
/// wrote them).
void max_pool2d_backward_out(const Tensor& grad_output, const Tensor& indices,
                             const Tensor& grad_input);
/// Each output's gradient, divided as the forward mean divided, spread over its window.
void avg_pool2d_backward_out(const Tensor& grad_output, const Pool2d& pool,
                             bool count_include_pad, std::optional<int64_t> divisor_override,
                             const Tensor& grad_input);
void adaptive_avg_pool2d_backward_out(const Tensor& grad_output, const Tensor& grad_input);

}  // namespace xport::kernels::cpu
