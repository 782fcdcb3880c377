#pragma once
// A graph resolved once at load: every value gets a slot, every call a step with its kernel
// function, so a run never looks anything up by name.

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xport/ir/ir.h"
#include "xport/ops/op_registry.h"

namespace xport::runtime {

enum class StepKind {
  Kernel,       ///< the op's out-variant kernel writes fresh outputs
  View,         ///< outputs share the aliased argument's storage; no kernel runs
  InPlace,      ///< the kernel writes into the aliased argument (never in a functional graph)
  HigherOrder,  ///< the op's kernel runs its subgraphs (each planned too) and returns outputs
  /// Output sizes only the data decides (nonzero), or an op nothing can run: runs as eager
  /// execution does.
  Eager,
  /// A composite op (PyTorch's training IR keeps aten::linear, aten::conv2d, ...), or any op
  /// with a decomposition and no kernel: runs as its decomposition, eagerly; its results get the
  /// layouts its node records, so the steps after it stay planned.
  Composite,
};

struct CompiledGraph;

struct CompiledStep {
  const ir::Node* node = nullptr;
  const OpDef* op = nullptr;
  const KernelFn* kernel = nullptr;  ///< the op's CPU kernel, or the node's own; null for views
  StepKind kind = StepKind::Kernel;
  int aliased_arg = -1;  ///< View / InPlace: the argument whose storage the outputs share
  int first_slot = 0;    ///< the node's values are slots [first_slot, first_slot + outputs)
  /// HigherOrder: each subgraph argument, compiled (the argument index, the graph).
  std::vector<std::pair<size_t, std::shared_ptr<const CompiledGraph>>> subgraphs = {};
  /// Whether the node binds unbacked symbols (item, nonzero): later sizes need their values.
  bool binds = false;
};

struct CompiledGraph {
  const ir::Graph* graph = nullptr;
  std::vector<int> node_slot;  ///< node position -> its first slot
  int num_slots = 0;
  /// Some node binds an unbacked symbol: steps whose sizes use it are sized when they run.
  bool has_unbacked = false;
  std::vector<int> placeholder_slots;
  std::vector<CompiledStep> steps;
  std::vector<int> output_slots;
  /// The first node nothing can run (an op with no kernel, no eager function and no
  /// decomposition), or empty. The runtime plans it as a step sized when it runs, which fails
  /// there, as eager execution would; the code generator refuses the program.
  std::string unrunnable;

  int slot(const ir::ValueRef& ref) const { return node_slot[ref.node->position()] + ref.index; }
};

/// The runtime's own kernel for single calls (packed weights), by node.
using NodeKernels = std::unordered_map<const ir::Node*, KernelFn>;

/// Resolves `graph` (which must outlive the result, as must `kernels`): a call with a kernel in
/// `kernels` runs it instead of its op's. Throws InvalidInput when an output is not a tensor.
CompiledGraph compile_graph(const ir::Graph& graph, const NodeKernels* kernels = nullptr);

/// A digest of `graph`'s steps (each op, kind, slots, aliased argument, and whether it runs the
/// node's own kernel): graphs with the same digest run the same steps on the same slots. A
/// compiled model checks at load that the runtime prepared the graph it was generated from.
uint64_t plan_fingerprint(const CompiledGraph& graph);

}  // namespace xport::runtime
