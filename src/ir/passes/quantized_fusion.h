#pragma once
// Integer kernels for PyTorch's quantized programs. PT2E's convert_pt2e leaves each quantized
// layer as float ops between dequantize and quantize calls; this pass finds the convolutions
//   aten::conv2d / aten::convolution (not transposed) of dequantize_per_tensor[.tensor](x_q, ...)
//   and dequantize_per_channel(W_q int8 [O, C, KH, KW], ...)  => xport::quantized_conv2d[.tensor]
// (a convolution of static quantization followed by [add of a dequantize_per_tensor(r_q) ->]
// [relu ->] quantize_per_tensor over the whole uint8 or int8 range becomes one
// xport::requantized_conv2d, its result already quantized: ResNet's blocks end so), and the
// linear layers
//   aten::linear(dequantize_per_tensor[.tensor](x_q, s, z, ...),
//                dequantize_per_channel(W_q, w_scales, zero points 0 or None, axis 0, ...),
//                bias: a float32 constant or None)
// with W_q a constant int8 [N, K], and writes xport::quantized_linear[.tensor](x_q, s, z, W_q,
// w_scales, bias) in its place, which multiplies the integers (an input of more dims is viewed
// as a matrix and the result viewed back). In static quantization, a linear layer followed by
// [relu or gelu ->] quantize_per_tensor over the whole range becomes one
// xport::requantized_linear, its result quantized (BERT's feed-forward: linear, GELU,
// quantize). Dequantize calls nothing else reads go with the linear.
// A linear layer (linear, or addmm / mm over the weights transposed) of a float32 input and
// dequantize_per_channel (int8, axis 0) or dequantize_per_channel_group weights (weight-only
// quantization) becomes xport::weight_only_linear: int4 values (quant range within [-8, 7],
// groups a multiple of 16, K of 128) packed two to a byte, int8 ones as they are. One of
// bfloat16 constant weights widened by _to_copy (quant::to_bf16) becomes xport::bf16_linear, and
// an embedding of such a table gathers bfloat16 rows and widens them. The sum of two
// dequantized 8-bit values, [ReLU,] quantized (XNNPACK's residual blocks) goes into the
// convolution before it, or becomes one xport::quantized_add (ir/passes/quantized_adds.h).
// What is left between a dequantize and a quantize then runs on the integers where it can
// (ir/passes/integer_chains.h: max pools, views, elementwise tables).

#include "ir/passes/constant_graph.h"
#include "ir/passes/integer_chains.h"
#include "ir/passes/quantized_adds.h"

namespace xport::ir::passes {

struct QuantizedFusionStats {
  int linears = 0;       ///< xport::quantized_linear and requantized_linear calls written
  int requantized_linears = 0;  ///< of which requantized_linear (activation, quantize absorbed)
  int convolutions = 0;  ///< xport::quantized_conv2d and requantized_conv2d calls written
  int requantized = 0;   ///< of which requantized_conv2d (the quantize after it absorbed)
  int residuals = 0;     ///< of those, adding a quantized residual before it
  int weight_only = 0;   ///< xport::weight_only_linear calls written (float inputs)
  int bf16 = 0;          ///< xport::bf16_linear calls, and embeddings gathering bfloat16 rows
  IntegerChainStats chains;  ///< calls between a dequantize and a quantize, now on the integers
  QuantizedAddStats adds;  ///< sums of two dequantized values, quantized (quantized_adds.h)
};

/// Rewrites `g` in place.
QuantizedFusionStats fuse_quantized_layers(ConstantGraph& g);

}  // namespace xport::ir::passes
