#pragma once
// The sum of two quantized tensors, quantized: XNNPACK's quantized programs (PT2E with
// XNNPACKQuantizer) end a residual block with
//   quantize(relu?(dequantize(a) + dequantize(b)))
// over 8-bit values, as PyTorch's quantized::add_relu does. One pass computes exactly what those
// ops compute one after another (quantize.h's formulas, in float32, in the same order), so the
// result equals the program's bit for bit. Elementwise over memory: a and b of one shape, in any
// one layout, give the result in that layout.

#include <cstdint>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// One 8-bit operand of quantized_add_out: its integers (uint8 or int8), scale and zero point.
struct QuantizedOperand {
  const Tensor& values;
  double scale;
  int64_t zero_point;
};

/// out = clamp(round(relu?((a - a.zp) * a.scale + (b - b.zp) * b.scale) * (1 / out_scale)) +
/// out_zero_point) over out's whole 8-bit range (uint8 or int8). a, b and out are of one shape.
void quantized_add_out(const QuantizedOperand& a, const QuantizedOperand& b, bool relu,
                       double out_scale, int64_t out_zero_point, const Tensor& out);

}  // namespace xport::kernels::cpu
