#include "runtime/execution_plan.h"

#include <algorithm>
#include <functional>

#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "ir/passes/memory_planning.h"

namespace xport::runtime {
namespace {

using Symbols = ir::SymbolValues;

// Walks the graph over fake tensors (layouts, no data) twice: first to learn every value's size
// and lifetime, then, with arena offsets assigned, to make the final steps.
class Planner {
 public:
  Planner(const CompiledGraph& graph, const std::vector<Tensor>& placeholders,
          const std::vector<bool>& is_user_input, const Symbols& symbols)
      : graph_(graph), symbols_(symbols) {
    const auto n = static_cast<size_t>(graph.num_slots);
    fakes_.resize(n);
    root_.assign(n, -1);
    result_bytes_.assign(n, std::nullopt);
    sized_at_run_.assign(n, false);
    weight_root_.assign(n, false);
    slot_per_run_.assign(n, false);
    XPORT_CHECK(placeholders.size() == graph.placeholder_slots.size(), Internal,
                "runtime: ", placeholders.size(), " placeholder tensors for ",
                graph.placeholder_slots.size(), " placeholders");
    for (size_t p = 0; p < placeholders.size(); ++p) {
      const auto s = static_cast<size_t>(graph.placeholder_slots[p]);
      TensorMeta meta = placeholders[p].meta();
      if (is_user_input[p]) {
        // The run normalises user inputs to this layout; any contiguous tensor addresses its
        // elements the same way, whatever strides its size-1 dims carry.
        meta.strides = contiguous_strides(meta.sizes);
        meta.storage_offset = 0;
      }
      fakes_[s] = Tensor::make(nullptr, std::move(meta));
      root_[s] = static_cast<int>(s);
      weight_root_[s] = !is_user_input[p];
      slot_per_run_[s] = is_user_input[p];
    }
  }

  std::unique_ptr<ExecutionPlan> plan() {
    auto plan = std::make_unique<ExecutionPlan>();
    plan->symbols = symbols_;
    for (size_t i = 0; i < graph_.steps.size(); ++i) walk_step(i, nullptr);
    assign_offsets(plan->stats);
    plan->steps.reserve(graph_.steps.size());
    for (size_t i = 0; i < graph_.steps.size(); ++i) walk_step(i, plan.get());
    plan->slot_per_run = std::move(slot_per_run_);
    for (size_t s = 0; s < plan->slot_per_run.size(); ++s) {
      if (plan->slot_per_run[s]) plan->run_slots.push_back(static_cast<int>(s));
    }
    for (int out : graph_.output_slots) {
      plan->copy_output.push_back(
          weight_root_[static_cast<size_t>(root_[static_cast<size_t>(out)])]);
    }
    return plan;
  }

 private:
  // Binds one step's arguments over the fakes and computes its outputs' layouts. With `plan`
  // null it records the bytes of fresh results; otherwise it appends the final step to `plan`.
  void walk_step(size_t index, ExecutionPlan* plan) {
    const CompiledStep& step = graph_.steps[index];
    const ir::Node& node = *step.node;
    const OpDef& op = *step.op;
    const std::string where = "runtime: node " + ir::detail::node_label(node) + ": ";
    PlannedStep planned;
    planned.step = &step;
    if (needs_run_time_sizes(step)) {
      plan_at_run(planned, plan);
      return;
    }
    std::vector<Value> values;
    values.reserve(node.args().size());
    for (size_t a = 0; a < node.args().size(); ++a) {
      const ir::Argument& arg = node.args()[a];
      values.push_back(ir::argument_value(
          arg, op.parsed.arguments[a].type,
          [&](const ir::ValueRef& ref) { return fakes_[static_cast<size_t>(graph_.slot(ref))]; },
          [&](sym::ExprPtr e) { return evaluate(e, where); },
          [](const ir::SubgraphRef&) { return GraphFn(); }));  // set per run
      add_hole(a, arg, op.parsed.arguments[a].type, planned.holes);
    }
    OpArgs bound = bind_args(op, std::move(values));
    const bool higher_order = step.kind == StepKind::HigherOrder;
    const bool composite = step.kind == StepKind::Composite;
    // A step that makes its own results (a higher-order or composite op): as its node says
    // (contiguous, sizes from the symbols).
    std::vector<TensorMeta> metas = higher_order || composite ? spec_metas(node.outputs(), where)
                                                              : op.meta(bound);
    check_outputs(node, metas, where);
    if (step.kind == StepKind::View || step.kind == StepKind::InPlace) {
      const auto* ref =
          std::get_if<ir::ValueRef>(&node.args()[static_cast<size_t>(step.aliased_arg)].value);
      XPORT_CHECK(ref != nullptr, Internal, where, "the aliased argument is not a graph value");
      planned.alias_slot = graph_.slot(*ref);
    }
    for (size_t o = 0; o < metas.size(); ++o) {
      const auto s = static_cast<size_t>(step.first_slot) + o;
      if (higher_order || composite) {
        // A subgraph may return an operand as it is: a result may be a weight. A composite's
        // results are always storage of their own (run_composite).
        root_[s] = static_cast<int>(s);
        weight_root_[s] = higher_order && reads_weight(planned.holes);
        if (plan != nullptr) planned.placement.push_back(Placement::Returned);
      } else if (step.kind == StepKind::Kernel && metas[o].none) {
        root_[s] = static_cast<int>(s);  // no tensor: the kernel gets an undefined one
        if (plan != nullptr) planned.placement.push_back(Placement::None);
      } else if (step.kind == StepKind::Kernel) {
        root_[s] = static_cast<int>(s);
        if (plan == nullptr) {
          result_bytes_[s] = storage_bytes(metas[o]);
        } else {
          place_output(step, o, metas[o], planned.placement, plan->stats);
        }
      } else {
        root_[s] = root_[static_cast<size_t>(planned.alias_slot)];
        planned.placement.push_back(Placement::Alias);
      }
      fakes_[s] = metas[o].none ? Tensor() : Tensor::make(nullptr, metas[o]);
      if (plan != nullptr) {
        const Placement where_placed = planned.placement.back();
        slot_per_run_[s] = where_placed == Placement::Returned || where_placed == Placement::Heap ||
                           (where_placed == Placement::Alias &&
                            slot_per_run_[static_cast<size_t>(planned.alias_slot)]);
        planned.per_run = planned.per_run || slot_per_run_[s];
      }
    }
    if (plan == nullptr) return;
    for (size_t h = 0; h < planned.holes.size(); ++h) {
      if (reads_per_run(planned.holes[h])) planned.run_holes.push_back(h);
    }
    planned.run_kernel = higher_order || composite || !nothing_to_write(metas);
    for (const auto& [arg, sub] : step.subgraphs) {
      std::vector<Tensor> inputs;
      for (const ir::Node* p : sub->graph->placeholders()) {
        inputs.push_back(Tensor::make(nullptr, spec_metas(p->outputs(), where).at(0)));
      }
      planned.subplans.push_back(
          make_plan(*sub, inputs, std::vector<bool>(inputs.size(), true), symbols_));
    }
    planned.outputs = std::move(metas);
    planned.args = bound.values();
    (step.kind == StepKind::View ? plan->stats.view_steps : plan->stats.kernel_steps) += 1;
    plan->stats.composite_steps += composite ? 1 : 0;
    plan->steps.push_back(std::move(planned));
  }

  bool known(sym::ExprPtr e) const {
    for (sym::ExprPtr s : sym::free_symbols(e)) {
      if (!symbols_.count(s)) return false;
    }
    return true;
  }

  // An op that sizes its outputs from data, an argument or size that uses an unbacked symbol,
  // or an input that such a step made.
  bool needs_run_time_sizes(const CompiledStep& step) const {
    if (step.kind == StepKind::Eager) return true;
    const ir::Node& node = *step.node;
    bool run_time = false;
    for (const ir::TensorSpec& spec : node.outputs()) {
      for (sym::ExprPtr size : spec.sizes) run_time = run_time || !known(size);
    }
    std::function<void(const ir::Argument&)> visit = [&](const ir::Argument& a) {
      if (const auto* e = std::get_if<sym::ExprPtr>(&a.value)) run_time = run_time || !known(*e);
      if (const auto* ref = std::get_if<ir::ValueRef>(&a.value)) {
        run_time = run_time || sized_at_run_[static_cast<size_t>(graph_.slot(*ref))];
      }
      if (const auto* list = std::get_if<std::vector<ir::Argument>>(&a.value)) {
        for (const ir::Argument& e : *list) visit(e);
      }
    };
    for (const ir::Argument& a : node.args()) visit(a);
    return run_time;
  }

  // A step sized when it runs: its outputs live outside the arena.
  void plan_at_run(PlannedStep& planned, ExecutionPlan* plan) {
    const CompiledStep& step = *planned.step;
    for (size_t a = 0; a < step.node->args().size(); ++a) {
      add_hole(a, step.node->args()[a], step.op->parsed.arguments[a].type, planned.holes);
    }
    const bool from_weight = reads_weight(planned.holes);
    for (size_t o = 0; o < step.node->outputs().size(); ++o) {
      const auto s = static_cast<size_t>(step.first_slot) + o;
      root_[s] = static_cast<int>(s);
      sized_at_run_[s] = true;
      slot_per_run_[s] = true;
      weight_root_[s] = from_weight;  // a view of a weight, perhaps
      fakes_[s] = Tensor();
    }
    if (plan == nullptr) return;
    planned.sized_at_run = true;
    plan->stats.run_time_steps += 1;
    plan->steps.push_back(std::move(planned));
  }

  // A graph-computed number's data changes per run even when its tensor stays in the frame.
  bool reads_per_run(const TensorHole& hole) const {
    if (!hole.list) return hole.number || slot_per_run_[static_cast<size_t>(hole.slot)];
    return std::any_of(hole.list_slots.begin(), hole.list_slots.end(), [&](int slot) {
      return slot >= 0 && slot_per_run_[static_cast<size_t>(slot)];
    });
  }

  bool reads_weight(const std::vector<TensorHole>& holes) const {
    const auto is_weight = [&](int slot) -> bool {
      return slot >= 0 && weight_root_[static_cast<size_t>(root_[static_cast<size_t>(slot)])];
    };
    return std::any_of(holes.begin(), holes.end(), [&](const TensorHole& h) -> bool {
      if (!h.list) return is_weight(h.slot);
      return std::any_of(h.list_slots.begin(), h.list_slots.end(), is_weight);
    });
  }

  // Contiguous layouts for specs, their sizes evaluated with the symbols.
  std::vector<TensorMeta> spec_metas(const std::vector<ir::TensorSpec>& specs,
                                     const std::string& where) const {
    std::vector<TensorMeta> out;
    for (const ir::TensorSpec& spec : specs) {
      std::optional<TensorMeta> meta = spec.concrete(symbols_, ir::TensorSpec::Layout::Contiguous);
      XPORT_CHECK(meta.has_value(), InvalidInput, where, spec.str(),
                  " cannot be computed from the inputs' symbols");
      out.push_back(std::move(*meta));
    }
    return out;
  }

  void add_hole(size_t a, const ir::Argument& arg, const ArgType& type,
                std::vector<TensorHole>& holes) const {
    if (const auto* ref = std::get_if<ir::ValueRef>(&arg.value)) {
      holes.push_back(TensorHole{
          .arg = a,
          .slot = graph_.slot(*ref),
          .number = type.base == BaseType::Scalar || type.base == BaseType::Float});
      return;
    }
    const auto* list = std::get_if<std::vector<ir::Argument>>(&arg.value);
    if (list == nullptr) return;
    TensorHole hole{.arg = a, .list = true};
    bool any = false;
    for (const ir::Argument& e : *list) {
      const auto* ref = std::get_if<ir::ValueRef>(&e.value);
      hole.list_slots.push_back(ref ? graph_.slot(*ref) : -1);
      any = any || ref != nullptr;
    }
    if (any) holes.push_back(std::move(hole));
  }

  int64_t evaluate(sym::ExprPtr e, const std::string& where) const {
    const auto v = ir::detail::evaluate_with(e, symbols_);
    XPORT_CHECK(v.has_value(), InvalidInput, where, sym::str(e),
                " cannot be computed from the inputs' symbols");
    return *v;
  }

  // The op's outputs against the graph's specs: a list result's length and the sizes can depend
  // on the symbols (split of a dynamic dim).
  void check_outputs(const ir::Node& node, const std::vector<TensorMeta>& metas,
                     const std::string& where) const {
    XPORT_CHECK(metas.size() == node.outputs().size(), InvalidInput, where, "produces ",
                metas.size(), " values, the graph has ", node.outputs().size(),
                " for it; the symbols do not fit the graph");
    for (size_t o = 0; o < metas.size(); ++o) {
      const ir::TensorSpec& spec = node.outputs()[o];
      bool same = metas[o].none == spec.none && metas[o].dtype == spec.dtype &&
                  metas[o].sizes.size() == spec.sizes.size();
      for (size_t d = 0; same && d < spec.sizes.size(); ++d) {
        same = metas[o].sizes[d].maybe_int() == evaluate(spec.sizes[d], where);
      }
      XPORT_CHECK(same, Internal, where, "output ", o, " is ",
                  metas[o].none ? "None" : Value(Tensor::make(nullptr, metas[o])).str(),
                  ", its spec says ", spec.str());
    }
  }

  // Arena offsets from the shared planner (ir/passes/memory_planning.h), which follows the
  // graph's values and its ops' aliasing facts; the bytes are those the kernels' metas gave.
  void assign_offsets(PlanStats& stats) {
    memory_ = ir::passes::plan_graph_memory(
        *graph_.graph, [&](const ir::Node& node, size_t o) {
          return result_bytes_[static_cast<size_t>(graph_.node_slot[node.position()]) + o];
        });
    stats.arena_bytes = memory_.arena.arena_bytes;
    stats.lower_bound_bytes = memory_.arena.lower_bound_bytes;
    stats.arena_values = memory_.arena_values;
  }

  // Output `o` of `step`: at its arena offset, or on the heap (a graph output).
  void place_output(const CompiledStep& step, size_t o, TensorMeta& meta,
                    std::vector<Placement>& placement, PlanStats& stats) const {
    const int64_t offset = memory_.offsets[step.node->position()][o];
    if (offset < 0) {
      placement.push_back(Placement::Heap);
      stats.output_bytes += storage_bytes(meta);
      return;
    }
    meta.storage_offset = meta.storage_offset + offset / element_size(meta.dtype);
    placement.push_back(Placement::Arena);
  }

  const CompiledGraph& graph_;
  const Symbols& symbols_;
  std::vector<Tensor> fakes_;      // per slot: its layout, no data
  std::vector<int> root_;          // per slot: the slot owning its storage
  std::vector<std::optional<int64_t>> result_bytes_;  // per slot: a kernel's fresh result's bytes
  std::vector<bool> sized_at_run_;  // per slot: made by a step sized when it runs
  std::vector<bool> weight_root_;  // per slot: a weight or constant placeholder
  std::vector<bool> slot_per_run_;  // per slot: given or made in each run (final walk)
  ir::passes::GraphMemoryPlan memory_;
};

}  // namespace

std::unique_ptr<ExecutionPlan> make_plan(const CompiledGraph& graph,
                                         const std::vector<Tensor>& placeholders,
                                         const std::vector<bool>& is_user_input,
                                         const Symbols& symbols) {
  return Planner(graph, placeholders, is_user_input, symbols).plan();
}

}  // namespace xport::runtime
