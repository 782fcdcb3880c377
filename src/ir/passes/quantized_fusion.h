#pragma once
// Integer kernels for PyTorch's quantized programs. PT2E's convert_pt2e leaves each quantized
// layer as float ops between dequantize and quantize calls; this pass finds the linear layers
//   aten::linear(dequantize_per_tensor[.tensor](x_q, s, z, ...),
//                dequantize_per_channel(W_q, w_scales, zero points 0 or None, axis 0, ...),
//                bias: a float32 constant or None)
// with W_q a constant int8 [N, K], and writes xport::quantized_linear[.tensor](x_q, s, z, W_q,
// w_scales, bias) in its place, which multiplies the integers (an input of more dims is viewed
// as a matrix and the result viewed back). The quantize after it stays as it is. Dequantize
// calls nothing else reads go with the linear.

#include "ir/passes/constant_graph.h"

namespace xport::ir::passes {

/// Rewrites `g` in place; returns how many linear layers now multiply integers.
int fuse_quantized_linears(ConstantGraph& g);

}  // namespace xport::ir::passes
