#include "runtime/compiled_graph.h"

#include <string>
#include <string_view>

#include "ir/ir_util.h"
#include "xport/core/error.h"

namespace xport::runtime {
namespace {

// An op with no kernel runs as its decomposition, as eager execution runs it. With none,
// nothing can: the step is sized when it runs, and fails there as eager execution would.
void run_as_decomposition(CompiledStep& step, const std::string& why_not,
                          std::string& unrunnable) {
  if (step.op->decomp) {
    step.kind = StepKind::Composite;
    return;
  }
  step.kind = StepKind::Eager;
  if (unrunnable.empty()) unrunnable = why_not;
}

// The step for a call; `unrunnable` says why when nothing can run it.
CompiledStep compile_step(const ir::Node& node, int first_slot, const NodeKernels* kernels,
                          std::string& unrunnable) {
  const OpDef& op = *node.op();
  CompiledStep step;
  step.node = &node;
  step.op = &op;
  step.first_slot = first_slot;
  const std::string label = ir::detail::node_label(node);
  step.binds = !node.unbacked_bindings().empty();
  if (kernels != nullptr) {
    if (const auto it = kernels->find(&node); it != kernels->end()) {
      // The node's own out-variant kernel, planned like the op's would be.
      step.kernel = &it->second;
      if (op.kind == OpKind::InPlace) {
        step.kind = StepKind::InPlace;
        step.aliased_arg = op.aliased_arg;
      }
      return step;
    }
  }
  if (op.higher_order) {
    step.kind = StepKind::HigherOrder;
    for (size_t a = 0; a < node.args().size(); ++a) {
      const auto* g = std::get_if<ir::SubgraphRef>(&node.args()[a].value);
      if (g == nullptr) continue;
      auto sub = std::make_shared<CompiledGraph>(compile_graph(*g->graph));
      if (!sub->unrunnable.empty() && unrunnable.empty()) {
        unrunnable = label + ", subgraph " + g->name + ": " + sub->unrunnable;
      }
      step.subgraphs.emplace_back(a, std::move(sub));
    }
    return step;
  }
  if (op.cpu_alloc && !op.kernel) {
    step.kind = StepKind::Eager;  // nonzero, masked_select: the kernel sizes its outputs
    return step;
  }
  // An op with both (index.Tensor) is a kernel step; the planner sizes it when it runs where
  // its sizes use a symbol only the data decides (a mask's true elements).
  if (op.kind == OpKind::Composite) {
    run_as_decomposition(step, label + ": a composite op with no decomposition", unrunnable);
    return step;
  }
  if (op.kind == OpKind::View) {
    step.kind = StepKind::View;
    step.aliased_arg = op.aliased_arg;
    return step;
  }
  const int aliased = op.kind == OpKind::InPlace ? op.aliased_arg : -1;
  if (!op.kernel) {
    run_as_decomposition(step, label + ": no CPU kernel and no decomposition", unrunnable);
    return step;
  }
  step.kernel = &op.kernel.fn;
  if (aliased >= 0) {
    step.kind = StepKind::InPlace;
    step.aliased_arg = aliased;
  }
  return step;
}

}  // namespace

CompiledGraph compile_graph(const ir::Graph& graph, const NodeKernels* kernels) {
  graph.verify();
  CompiledGraph out;
  out.graph = &graph;
  const auto& nodes = graph.nodes();
  out.node_slot.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node& node = *nodes[i];
    out.node_slot[i] = out.num_slots;
    switch (node.kind()) {
      case ir::NodeKind::Placeholder:
        out.placeholder_slots.push_back(out.num_slots);
        break;
      case ir::NodeKind::Call: {
        std::string reason;
        out.steps.push_back(compile_step(node, out.num_slots, kernels, reason));
        if (out.unrunnable.empty()) out.unrunnable = reason;
        out.has_unbacked = out.has_unbacked || out.steps.back().binds;
        break;
      }
      case ir::NodeKind::Output:
        for (size_t r = 0; r < node.args().size(); ++r) {
          const auto* ref = std::get_if<ir::ValueRef>(&node.args()[r].value);
          XPORT_CHECK(ref != nullptr, InvalidInput, "runtime: result ", r, " of the graph is ",
                      node.args()[r].str(), ", not a tensor; the runtime returns tensors only");
          out.output_slots.push_back(out.slot(*ref));
        }
        break;
    }
    out.num_slots += static_cast<int>(node.outputs().size());
  }
  return out;
}

uint64_t plan_fingerprint(const CompiledGraph& graph) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a
  const auto mix = [&h](std::string_view bytes) {
    for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  };
  const auto number = [&mix](int64_t v) { mix(std::to_string(v) + ","); };
  number(graph.num_slots);
  number(static_cast<int64_t>(graph.placeholder_slots.size()));
  for (const CompiledStep& step : graph.steps) {
    mix(step.op->qualified_name);
    number(static_cast<int64_t>(step.kind));
    number(step.first_slot);
    number(step.aliased_arg);
    number(step.kernel != nullptr && step.kernel != &step.op->kernel.fn);
  }
  for (int slot : graph.output_slots) number(slot);
  return h;
}

}  // namespace xport::runtime
