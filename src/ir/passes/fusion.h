#pragma once
// Operator fusion over the IR, for every backend: first PT2E's quantized linear layers become
// integer products (ir/passes/quantized_fusion.h) and GELUs written out elementwise become
// aten::gelu calls (ir/passes/gelu_recognition.h); then each pattern becomes one call of a
// registered fused op (ops/fused/fused_ops.cpp), which has a meta function, a kernel and a
// decomposition like any op. A backend gives the fused calls its own kernels (the runtime runs
// convolutions and matrix products on packed weights, and elementwise chains in one pass over
// memory) or decomposes them again.
//   convolution [-> batch norm (inference)] [-> add residual] [-> relu]  => xport::fused_conv2d
//     (the batch norm folded into new constant weights and bias)
//   addmm / mm with constant weights [-> view] -> relu / gelu            => xport::fused_linear
//   PyTorch's training IR: aten::conv2d, aten::batch_norm (not training) and relu_ as above;
//   aten::linear with constant weights [-> relu / gelu]                 => xport::fused_linear
//     (the weight seen transposed; an input of more dims viewed as a matrix and back)
//   two or more float32 functional elementwise ops, each the only reader of the one before and
//   no in-place update among them                                     => xport::fused_pointwise
//     (the chain as its subgraph)

#include <string>

#include "ir/passes/constant_graph.h"
#include "ir/passes/quantized_fusion.h"

namespace xport::ir::passes {

struct FusionStats {
  int gelus = 0;             ///< GELUs written out elementwise, now aten::gelu calls
  int convolutions = 0;      ///< xport::fused_conv2d calls
  int batch_norms = 0;       ///< batch norms folded into the convolution before them
  int residuals = 0;         ///< residual adds the fused convolutions do
  int relus = 0;             ///< ReLUs the fused convolutions do
  int linears = 0;           ///< xport::fused_linear calls
  int activations = 0;       ///< ReLU / GELU the fused matrix products do
  int pointwise_chains = 0;  ///< xport::fused_pointwise calls
  int pointwise_ops = 0;     ///< the ops in their subgraphs
  QuantizedFusionStats quantized;  ///< integer products (ir/passes/quantized_fusion.h)
  int unsigned_results = 0;  ///< int8 results carried as uint8 (ir/passes/unsigned_activations.h)
};

/// Rewrites `g` in place. Convolutions and matrix products are fused when their weights (and
/// bias) are constants of `g`; values that are graph outputs are never absorbed. The graph
/// verifies afterwards.
FusionStats fuse_operators(ConstantGraph& g);

}  // namespace xport::ir::passes
