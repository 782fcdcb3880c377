#pragma once
// Transposed 2-D convolution and the gradients of 2-D convolution and of transposed convolution
// (aten::convolution with transposed=True, aten::convolution_backward), as GEMMs over im2col
// columns: per sample and group, columns = im2col(image) [C/g * kh * kw, windows], and
//   conv:            out_g  = W_g [O/g, C/g*k] @ columns(in)
//   its input grad:  grad_g = col2im(W_g^T @ grad_out_g)       (= a transposed convolution)
//   its weight grad: dW_g   = sum over samples of grad_out_g @ columns(in)^T
// float32 (and 16-bit floats, computed in float32) runs on oneDNN's sgemm; float64 on a loop.

#include <array>
#include <cstdint>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// The geometry of a 2-D convolution, each pair as (height, width).
struct ConvGeometry {
  std::array<int64_t, 2> stride = {1, 1};
  std::array<int64_t, 2> padding = {0, 0};
  std::array<int64_t, 2> dilation = {1, 1};
  int64_t groups = 1;
};

/// out [N, O, OH, OW] = the transposed convolution of input [N, C, H, W] with weight
/// [C, O / groups, kh, kw], plus bias [O] (may be undefined); out's size (output_padding
/// included) was decided by the caller, which validated the shapes.
void conv_transpose2d_out(const Tensor& input, const Tensor& weight, const Tensor& bias,
                          const ConvGeometry& geometry, const Tensor& out);

/// The gradients of out = conv2d(input, weight) + bias given grad_out (out's shape): grad_input
/// (input's shape), grad_weight (weight's) and grad_bias ([O]). An undefined one is not computed.
void conv2d_backward_out(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                         const ConvGeometry& geometry, const Tensor& grad_input,
                         const Tensor& grad_weight, const Tensor& grad_bias);

/// The same for out = conv_transpose2d(input, weight) + bias.
void conv_transpose2d_backward_out(const Tensor& grad_out, const Tensor& input,
                                   const Tensor& weight, const ConvGeometry& geometry,
                                   const Tensor& grad_input, const Tensor& grad_weight,
                                   const Tensor& grad_bias);

}  // namespace xport::kernels::cpu
