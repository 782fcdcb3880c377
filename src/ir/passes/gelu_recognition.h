#pragma once
// GELU written out elementwise, as PyTorch programs often hold it: Hugging Face's
// NewGELUActivation (GPT-2's "gelu_new") and older BERT code write
//   0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))      aten::gelu(x, "tanh")
//   x * 0.5 * (1 + erf(x / sqrt(2)))                               aten::gelu(x, "none")
// and torch.export keeps each op. Recognised as one aten::gelu call, the fusion that follows
// puts it in a matrix product's epilogue and its kernel computes it in one pass.

#include "ir/passes/constant_graph.h"

namespace xport::ir::passes {

/// Replaces each float32 GELU written out in `g` (any order of the adds and products, any
/// spelling of the constants that agrees with them to 1e-6) by an aten::gelu call, and returns
/// how many. The ops it replaces are left for dead code elimination. Results change within
/// float rounding: aten::gelu's kernel, not the program's sequence of roundings.
int recognize_gelu(ConstantGraph& g);

}  // namespace xport::ir::passes
