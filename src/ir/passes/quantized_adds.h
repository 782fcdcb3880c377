#pragma once
// XNNPACKQuantizer's residual blocks: each convolution quantizes its own result, then
//   quantize([relu](dequantize(a) + dequantize(b)))
// sums two 8-bit values. Where a is a requantized convolution's result that only the sum reads
// (and b is of the sum's dtype), the convolution does it all (xport::requantized_conv2d's
// conv_scale: its result quantized as before, dequantized, b added as its residual, [ReLU,]
// quantized; within a step of PyTorch's formula, as the sum post-op of X86's blocks). Any
// other such sum becomes one xport::quantized_add, exact. Runs after the quantized fusion has
// made the requantized convolutions.

#include "ir/passes/constant_graph.h"

namespace xport::ir::passes {

struct QuantizedAddStats {
  int adds = 0;                ///< sums rewritten...
  int into_convolutions = 0;   ///< ...of which a requantized convolution's post-ops do
};

/// Rewrites `g` in place.
QuantizedAddStats fuse_quantized_adds(ConstantGraph& g);

}  // namespace xport::ir::passes
