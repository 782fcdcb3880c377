#pragma once
// Where xport::fused_conv2d's (and fused_conv2d_'s) arguments stand: aten::convolution's nine,
// then `residual` and `relu` (read by name). The fused op passes the first nine on to
// aten::convolution, and the runtime's kernel for it reads them.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "xport/ops/op_registry.h"
#include "xport/tensor/tensor.h"

namespace xport::ops::fused_conv2d_args {

constexpr size_t kConvolution = 9;  ///< the count of aten::convolution's arguments, first
void xport_quantized_lookup_out(const Tensor& self, const Tensor& table, const Tensor& out);

}  // namespace xport::ops::fused_conv2d_args

namespace xport::ops {

/// The activations fused matrix products take (their `activation` argument): "none", "relu",
/// "gelu" (erf) and "gelu_tanh". The check names the op and the activation given.
void check_linear_activation(const OpArgs& a);
/// `y` with the activation named applied.
Tensor apply_linear_activation(Tensor y, const std::string& activation);

// The fused ops' out-variant kernels: one named function per op, its parameters the schema's
// arguments in order, then one tensor per result. Registration binds them (XPORT_OP_KERNEL) and
// a code generator can call them. Arguments are valid: the op's meta function checked them.
void xport_fused_conv2d_out(const Tensor& input, const Tensor& weight,
                            const std::optional<Tensor>& bias, const std::vector<int64_t>& stride,
                            const std::vector<int64_t>& padding,
                            const std::vector<int64_t>& dilation, bool transposed,
                            const std::vector<int64_t>& output_padding, int64_t groups,
                            const std::optional<Tensor>& residual, bool relu, const Tensor& out);
void xport_fused_conv2d__out(const Tensor& input, const Tensor& weight,
                             const std::optional<Tensor>& bias,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation, bool transposed,
                             const std::vector<int64_t>& output_padding, int64_t groups,
                             const Tensor& residual, bool relu, const Tensor& out);
void xport_fused_linear_out(const Tensor& input, const Tensor& weight,
                            const std::optional<Tensor>& bias, const std::string& activation,
                            const Tensor& out);
// quantized_ops.cpp
void xport_quantized_linear_out(const Tensor& input, double input_scale,
                                int64_t input_zero_point, const Tensor& weight,
                                const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                const Tensor& out);
void xport_quantized_linear_tensor_out(const Tensor& input, const Tensor& input_scale,
                                       const Tensor& input_zero_point, const Tensor& weight,
                                       const Tensor& weight_scales,
                                       const std::optional<Tensor>& bias, const Tensor& out);
void xport_requantized_linear_out(const Tensor& input, double input_scale,
                                  int64_t input_zero_point, const Tensor& weight,
                                  const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                  const std::string& activation, double output_scale,
                                  int64_t output_zero_point, DType output_dtype,
                                  const Tensor& out);
void xport_quantized_conv2d_out(const Tensor& input, double input_scale,
                                int64_t input_zero_point, const Tensor& weight,
                                const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                const std::vector<int64_t>& stride,
                                const std::vector<int64_t>& padding,
                                const std::vector<int64_t>& dilation, int64_t groups,
                                const Tensor& out);
void xport_requantized_conv2d_out(const Tensor& input, double input_scale,
                                  int64_t input_zero_point, const Tensor& weight,
                                  const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                  const std::vector<int64_t>& stride,
                                  const std::vector<int64_t>& padding,
                                  const std::vector<int64_t>& dilation, int64_t groups,
                                  bool relu, double output_scale, int64_t output_zero_point,
                                  DType output_dtype, const std::optional<Tensor>& residual,
                                  double residual_scale, int64_t residual_zero_point,
                                  std::optional<double> conv_scale, int64_t conv_zero_point,
                                  std::optional<DType> conv_dtype, const Tensor& out);
void xport_requantized_conv2d__out(const Tensor& input, double input_scale,
                                   int64_t input_zero_point, const Tensor& weight,
                                   const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                   const std::vector<int64_t>& stride,
                                   const std::vector<int64_t>& padding,
                                   const std::vector<int64_t>& dilation, int64_t groups,
                                   bool relu, double output_scale, int64_t output_zero_point,
                                   DType output_dtype, const Tensor& residual,
                                   double residual_scale, int64_t residual_zero_point,
                                   std::optional<double> conv_scale, int64_t conv_zero_point,
                                   std::optional<DType> conv_dtype, const Tensor& out);
void xport_quantized_conv2d_tensor_out(const Tensor& input, const Tensor& input_scale,
                                       const Tensor& input_zero_point, const Tensor& weight,
                                       const Tensor& weight_scales,
                                       const std::optional<Tensor>& bias,
                                       const std::vector<int64_t>& stride,
                                       const std::vector<int64_t>& padding,
                                       const std::vector<int64_t>& dilation, int64_t groups,
                                       const Tensor& out);
void xport_quantized_add_out(const Tensor& self, double self_scale, int64_t self_zero_point,
                             const Tensor& other, double other_scale, int64_t other_zero_point,
                             bool relu, double output_scale, int64_t output_zero_point,
                             DType output_dtype, const Tensor& out);
void xport_quantized_lookup_out(const Tensor& self, const Tensor& table, const Tensor& out);

}  // namespace xport::ops
