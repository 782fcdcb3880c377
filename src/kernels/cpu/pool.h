#pragma once
// Pooling kernels over the last N dims (N = 2: [C, H, W] or [N, C, H, W]; N = 3: [C, D, H, W] or
// [N, C, D, H, W]), one code path for every N. Each writes outputs the caller sized (the pooled
// dims are read from `out`).

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// Adaptive window o of out_size over in_size, [floor(o*I/O), ceil((o+1)*I/O)): ATen's
/// start/end index arithmetic, exact in integers.
inline int64_t adaptive_start(int64_t o, int64_t out_size, int64_t in_size) {
  return (o / out_size) * in_size + ((o % out_size) * in_size) / out_size;
}
inline int64_t adaptive_end(int64_t o, int64_t out_size, int64_t in_size) {
  return 1 + ((o + 1) * in_size - 1) / out_size;
}

/// N ones: a step of 1 in every pooled dim (no dilation).
template <size_t N>
constexpr std::array<int64_t, N> unit_steps() {
  std::array<int64_t, N> a{};
  a.fill(1);
  return a;
}

/// Window geometry of an N-d pool, each array in the pooled dims' order (depth, height, width).
template <size_t N>
struct PoolWindow {
  std::array<int64_t, N> kernel{}, stride{}, pad{};
  std::array<int64_t, N> dilation = unit_steps<N>();
};
using Pool2d = PoolWindow<2>;
using Pool3d = PoolWindow<3>;

/// The window of ATen's pooling arguments: kernel_size, stride (empty: kernel_size), padding
/// and dilation (empty: 1), each N values or one for every dim.
template <size_t N>
PoolWindow<N> pool_window(const std::vector<int64_t>& kernel_size,
                          const std::vector<int64_t>& stride,
                          const std::vector<int64_t>& padding,
                          const std::vector<int64_t>& dilation) {
  const auto dims = [](const std::vector<int64_t>& v, std::array<int64_t, N> otherwise) {
    if (v.empty()) return otherwise;
    std::array<int64_t, N> a{};
    for (size_t i = 0; i < N; ++i) a[i] = v[v.size() == 1 ? 0 : i];
    return a;
  };
  PoolWindow<N> p;
  p.kernel = dims(kernel_size, {});
  p.stride = dims(stride, p.kernel);
  p.pad = dims(padding, {});
  p.dilation = dims(dilation, unit_steps<N>());
  return p;
}

/// Max over each window (the first maximum wins, NaN wins over anything); `indices` (int64, may
/// be undefined) gets the argmax as an index into the input's flattened pooled dims, like ATen.
template <size_t N>
void max_pool_out(const Tensor& self, const PoolWindow<N>& pool, const Tensor& out,
                  const Tensor& indices);
/// max_pool_out<2> over [N, C, H, W] values laid out with `block` channels innermost in memory
/// ([N, C / block, H, W, block]; block = C: NHWC), as the runtime passes convolutions' results
/// (ConvLayouts: uint8 or int8 NHWC between integer convolutions, float32 in the layout of
/// passed_channel_block between packed ones); `out` is written in the same layout. Each output
/// pixel's channels are the maxima over its window's pixels (padding never wins, NaN does).
void max_pool2d_channels_inner(const Tensor& self, const Pool2d& pool, int64_t block,
                               const Tensor& out);
/// Mean over each window, ATen's avg_pool2d/3d (padding counts unless !count_include_pad).
template <size_t N>
void avg_pool_out(const Tensor& self, const PoolWindow<N>& pool, bool count_include_pad,
                  std::optional<int64_t> divisor_override, const Tensor& out);
/// Mean over adaptive windows [floor(o*I/O), ceil((o+1)*I/O)) in each pooled dim.
template <size_t N>
void adaptive_avg_pool_out(const Tensor& self, const Tensor& out);

// Backward (gradients): grad_input (shaped as the pool's input) from grad_output (shaped as
// its output).
/// Each output's gradient goes to the input its max came from (`indices`, as max_pool_out
/// wrote them).
template <size_t N>
void max_pool_backward_out(const Tensor& grad_output, const Tensor& indices,
                           const Tensor& grad_input);
/// Each output's gradient, divided as the forward mean divided, spread over its window.
template <size_t N>
void avg_pool_backward_out(const Tensor& grad_output, const PoolWindow<N>& pool,
                           bool count_include_pad, std::optional<int64_t> divisor_override,
                           const Tensor& grad_input);
template <size_t N>
void adaptive_avg_pool_backward_out(const Tensor& grad_output, const Tensor& grad_input);

}  // namespace xport::kernels::cpu
