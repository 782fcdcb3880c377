#pragma once
// Load-time rewrites of a graph whose weights are known: a convolution absorbs the inference
// batch norm after it (folded into its weights and bias), then the residual add and the ReLU
// after that, and runs as one oneDNN call on weights reordered once (kernels::cpu::PackedConv2d);
// a matrix product with constant weights absorbs its bias and a ReLU or GELU after it
// (kernels::cpu::PackedLinear); what remains of chains of elementwise ops runs in one pass over
// memory (PointwiseChain).

#include <memory>
#include <string>
#include <vector>

#include "xport/ir.h"
#include "xport/op_registry.h"
#include "xport/tensor.h"

namespace xport::runtime {

struct FusionStats {
  int convolutions = 0;   ///< convolutions running on packed weights
  int batch_norms = 0;    ///< batch norms folded into the convolution before them
  int residuals = 0;      ///< residual adds done by the convolution's epilogue
  int relus = 0;          ///< ReLUs done by the convolution's epilogue
  int channels_last = 0;  ///< convolution results only convolutions read, kept in oneDNN's
                          ///< layout (channels-last, or nChw16c for batches of 4 and more)
  int residuals_in_place = 0;  ///< convolutions that write their result over their residual
  int linears = 0;        ///< matrix products (addmm, mm) with constant weights, on packed weights
  int activations = 0;    ///< ReLU / GELU done by a matrix product's epilogue
  int pointwise_chains = 0;  ///< chains of elementwise ops run in one pass over memory
  int pointwise_ops = 0;     ///< the ops in those chains
  std::string str() const;
};

struct FusedGraph {
  /// The ops only this graph calls (each holds its packed weights); declared before the graph so
  /// they outlive it.
  std::vector<std::unique_ptr<OpDef>> ops;
  ir::Graph graph;
  std::vector<Tensor> placeholders;  ///< constants, undefined where a user input goes
  std::vector<bool> is_user_input;
  /// Buffers the program updates in place: read as they are when the call runs, never folded.
  std::vector<bool> is_updated;
  FusionStats stats;
};

/// Rewrites a copy of `graph`. `placeholders` holds every placeholder's constant (weights,
/// buffers) in graph order, undefined for user inputs; folded weights become new constant
/// placeholders appended to it. Values that are graph outputs are never absorbed; buffers marked
/// in `is_updated` are not treated as constants.
FusedGraph fuse_graph(const ir::Graph& graph, std::vector<Tensor> placeholders,
                      std::vector<bool> is_user_input, std::vector<bool> is_updated);

}  // namespace xport::runtime
