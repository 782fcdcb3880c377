#pragma once
// Float ops between a dequantize and a quantize that can run on the 8-bit values themselves. For
// quantize(f(dequantize(x_q))), x_q uint8 or int8 over its whole range (static quantization):
// - f a chain of calls that only move or select values (views, copies, eval-mode dropout, max
//   pools), the quantize's scale, zero point and dtype those of the dequantize: f(x_q), the
//   same calls on the integers, as quantize(dequantize(v)) is v and dequantize keeps order
//   (XNNPACKQuantizer's programs quantize again after each view and dropout);
// - f a chain of elementwise calls of one operand (XNNPACK's quantized GELU): one
//   xport::quantized_lookup(x_q, table), the table of the chain's 256 results computed once
//   here by the same ops, so every value is what the chain gives it.

#include "ir/passes/constant_graph.h"

namespace xport::ir::passes {

struct IntegerChainStats {
  int moves = 0;    ///< chains that move or select values (max pools too), now on the integers
  int lookups = 0;  ///< elementwise chains now one xport::quantized_lookup
};

/// Rewrites `g` in place (the float calls left unread stay for dead code elimination).
IntegerChainStats fuse_integer_chains(ConstantGraph& g);

}  // namespace xport::ir::passes
