#pragma once
// The graph the runtime plans: the program's, after the shared passes (constant folding, fusion,
// buffer updates in place: ir/passes/), with the runtime's own kernels for the fused calls —
// convolutions and matrix products on weights reordered once for oneDNN
// (kernels::cpu::PackedConv2d, PackedLinear), elementwise chains in one pass over memory
// (PointwiseChain). Between fused convolutions, results stay in oneDNN's layout, and a
// convolution that is the last reader of its residual writes over it (xport::fused_conv2d_).

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/passes/composite_expansion.h"
#include "ir/passes/fusion.h"
#include "ir/passes/reinplace.h"
#include "kernels/cpu/conv.h"
#include "kernels/cpu/packed_linear.h"
#include "kernels/cpu/quantized_conv.h"
#include "kernels/cpu/quantized_linear.h"
#include "xport/ir/ir.h"
#include "xport/ops/op_registry.h"
#include "xport/program/exported_program.h"
#include "xport/tensor/tensor.h"

namespace xport::runtime {

struct PreparedStats {
  int folded = 0;  ///< calls on constants run once at load
  ir::passes::FusionStats fusion;
  int channels_last = 0;  ///< convolution results only convolutions read, kept in oneDNN's
                          ///< layout (channels-last, or nChw16c for batches of 4 and more)
  int residuals_in_place = 0;  ///< convolutions that write their result over their residual
  int quantized_channels_last = 0;  ///< integer convolutions' results passed on in NHWC
  int quantized_residuals_in_place = 0;  ///< integer convolutions written over their residual
  int quantized_adds_channels_last = 0;   ///< quantized adds passing NHWC operands on
  int lookups_channels_last = 0;          ///< quantized lookups passing NHWC operands on
  int pools_channels_last = 0;            ///< max pools in the convolutions' layout
  /// Calls of composite ops (PyTorch's training IR) replaced by the calls their decomposition
  /// makes, and those left to run as their decomposition.
  ir::passes::ExpansionStats expansion;
  std::string str() const;
};

/// The runtime's own kernel of a fused call, as an object a code generator's output can call
/// directly (xport::aot): a packed convolution or matrix product (float, or on int8 weights:
/// Quantized, one of the quantized_ pointers set), an elementwise chain, or a kernel of one
/// tensor in and one out that the runtime chose at load (Unary: a max pool over NHWC integers).
struct PackedCall {
  enum class Kind { Conv2d, Linear, Quantized, PointwiseChain, Unary };
  Kind kind = Kind::Conv2d;
  std::shared_ptr<const kernels::cpu::PackedConv2d> conv = {};
  std::shared_ptr<const kernels::cpu::PackedLinear> linear = {};
  std::shared_ptr<const kernels::cpu::PackedQuantizedLinear> quantized_linear = {};
  std::shared_ptr<const kernels::cpu::PackedQuantizedConv2d> quantized_conv = {};
  std::function<void(const Tensor& input, const Tensor& out)> unary = {};
};

/// Runs a Quantized call's kernel: the input's scale and zero point as numbers; `residual`
/// undefined but for a requantized convolution that adds one.
void run_quantized(const PackedCall& call, const Tensor& input, double input_scale,
                   int64_t input_zero_point, const Tensor& residual, const Tensor& out);

struct PreparedGraph {
  ir::Graph graph;
  std::vector<Tensor> placeholders;  ///< the program's, then the constants the passes made
  std::vector<bool> is_user_input;
  /// The runtime's kernel for a call, where it has its own (packed weights, chains).
  std::unordered_map<const ir::Node*, KernelFn> kernels;
  std::unordered_map<const ir::Node*, PackedCall> packed;  ///< what each of `kernels` is
  std::vector<size_t> in_place_outputs;  ///< graph outputs now updated where they lie
  PreparedStats stats;
};

/// `placeholders` holds each placeholder's tensor (weights, buffers; undefined for user
/// inputs). With `optimize`, folds constants, fuses (buffers in `updates` are not treated as
/// constants, graph outputs are never absorbed) and expands the calls left that would run as
/// their decomposition into the calls it makes (over `symbols`' ranges); then makes the updates
/// in place where it can. A graph the runtime cannot plan, or one with data-dependent sizes, is
/// not optimized.
PreparedGraph prepare_graph(const ir::Graph& graph, const std::vector<SymbolSpec>& symbols,
                            std::vector<Tensor> placeholders,
                            std::vector<bool> is_user_input,
                            const std::vector<ir::InputUpdate>& updates, bool optimize);

}  // namespace xport::runtime
