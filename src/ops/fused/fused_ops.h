#pragma once
// Where xport::fused_conv2d's (and fused_conv2d_'s) arguments stand: aten::convolution's nine,
// then the residual and the ReLU flag. The fused op reads them, and so does the runtime's kernel
// for it.

#include <cstddef>

namespace xport::ops::fused_conv2d_args {

constexpr size_t kConvolution = 9;  ///< the count of aten::convolution's arguments, first
constexpr size_t kResidual = 9;     ///< Tensor? residual (Tensor(a!) in fused_conv2d_)
constexpr size_t kRelu = 10;        ///< bool relu

}  // namespace xport::ops::fused_conv2d_args
