#pragma once
// What the quantized passes read off PT2E's quantize_per_tensor and dequantize_per_tensor calls:
// static quantization (numbers for the scale and zero point) over a whole 8-bit range, which is
// what xport's integer kernels read and write.

#include "xport/ir/ir.h"

namespace xport::ir::passes::quantized {

/// Whether a quantize_per_tensor / dequantize_per_tensor call spans the whole range of `dtype`
/// (uint8 or int8).
bool whole_range(const Node& node, DType dtype);

/// The dtype of a quantize_per_tensor call over the whole range of its uint8 or int8 dtype; else
/// null (also for calls of other ops, or null).
const DType* whole_range_dtype(const Node* quantize);

/// The value a float32 dequantize_per_tensor reads, where it is uint8 or int8 over its whole
/// range with numbers for the scale and zero point; else null (also for calls of other ops).
const ValueRef* statically_dequantized(const Node* dequantize);

/// Whether two calls (quantize or dequantize) take the same scale, zero point and dtype, as
/// numbers.
bool same_parameters(const Node& a, DType a_dtype, const Node& b, DType b_dtype);

}  // namespace xport::ir::passes::quantized
