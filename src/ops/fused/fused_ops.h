#pragma once
// Where xport::fused_conv2d's (and fused_conv2d_'s) arguments stand: aten::convolution's nine,
// then the residual and the ReLU flag. The fused op reads them, and so does the runtime's kernel
// for it.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "xport/tensor.h"

namespace xport::ops::fused_conv2d_args {

constexpr size_t kConvolution = 9;  ///< the count of aten::convolution's arguments, first
constexpr size_t kResidual = 9;     ///< Tensor? residual (Tensor(a!) in fused_conv2d_)
constexpr size_t kRelu = 10;        ///< bool relu

}  // namespace xport::ops::fused_conv2d_args

namespace xport::ops {

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

}  // namespace xport::ops
