#include "runtime/execution_plan.h"

#include <chrono>

#include <algorithm>
#include <functional>

#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "ir/passes/memory_planning.h"

namespace xport::runtime {
namespace {

using Symbols = std::unordered_map<sym::ExprPtr, int64_t>;

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
    }
  }

  std::unique_ptr<ExecutionPlan> plan() {
    auto plan = std::make_unique<ExecutionPlan>();
    plan->symbols = symbols_;
    for (size_t i = 0; i < graph_.steps.size(); ++i) walk_step(i, nullptr);
    assign_offsets(plan->stats);
    plan->steps.reserve(graph_.steps.size());
    for (size_t i = 0; i < graph_.steps.size(); ++i) walk_step(i, plan.get());
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
    // A higher-order op's results are as its node says (contiguous, sizes from the symbols).
    std::vector<TensorMeta> metas = higher_order ? spec_metas(node.outputs(), where) : op.meta(bound);
    check_outputs(node, metas, where);
    if (step.kind == StepKind::View || step.kind == StepKind::InPlace) {
      const auto* ref =
          std::get_if<ir::ValueRef>(&node.args()[static_cast<size_t>(step.aliased_arg)].value);
      XPORT_CHECK(ref != nullptr, Internal, where, "the aliased argument is not a graph value");
      planned.alias_slot = graph_.slot(*ref);
    }
    for (size_t o = 0; o < metas.size(); ++o) {
      const auto s = static_cast<size_t>(step.first_slot) + o;
      if (higher_order) {
        // A subgraph may return an operand as it is: a result may be a weight.
        root_[s] = static_cast<int>(s);
        weight_root_[s] = reads_weight(planned.holes);
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
    }
    if (plan == nullptr) return;
    planned.run_kernel = higher_order || !nothing_to_write(metas);
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
    if (higher_order) planned.args = bound.values();
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
      weight_root_[s] = from_weight;  // a view of a weight, perhaps
      fakes_[s] = Tensor();
    }
    if (plan == nullptr) return;
    planned.sized_at_run = true;
    plan->stats.run_time_steps += 1;
    plan->steps.push_back(std::move(planned));
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
      TensorMeta meta;
      meta.dtype = spec.dtype;
      for (sym::ExprPtr size : spec.sizes) meta.sizes.emplace_back(evaluate(size, where));
      meta.strides = contiguous_strides(meta.sizes);
      out.push_back(std::move(meta));
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
  ir::passes::GraphMemoryPlan memory_;
};

}  // namespace

std::shared_ptr<Storage> ExecutionPlan::acquire_arena() const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_arenas_.empty()) {
      std::shared_ptr<Storage> arena = std::move(free_arenas_.back());
      free_arenas_.pop_back();
      return arena;
    }
  }
  return Storage::allocate(stats.arena_bytes);
}

void ExecutionPlan::release_arena(std::shared_ptr<Storage> arena) const {
  std::lock_guard<std::mutex> lock(mutex_);
  free_arenas_.push_back(std::move(arena));
}

std::unique_ptr<ExecutionPlan> make_plan(const CompiledGraph& graph,
                                         const std::vector<Tensor>& placeholders,
                                         const std::vector<bool>& is_user_input,
                                         const Symbols& symbols) {
  return Planner(graph, placeholders, is_user_input, symbols).plan();
}

namespace {

// Returns the arena to the plan's pool when the run ends, normally or by an exception.
class ArenaLease {
 public:
  explicit ArenaLease(const ExecutionPlan& plan) : plan_(plan), arena_(plan.acquire_arena()) {}
  ~ArenaLease() { plan_.release_arena(std::move(arena_)); }
  ArenaLease(const ArenaLease&) = delete;
  ArenaLease& operator=(const ArenaLease&) = delete;
  const std::shared_ptr<Storage>& arena() const { return arena_; }

 private:
  const ExecutionPlan& plan_;
  std::shared_ptr<Storage> arena_;
};

}  // namespace

// The step's arguments with this run's tensors in their holes.
std::vector<Value> bound_args(const PlannedStep& planned, const std::vector<Tensor>& slots) {
  std::vector<Value> args = planned.args;
  for (const TensorHole& hole : planned.holes) {
    if (!hole.list) {
      const Tensor& t = slots[static_cast<size_t>(hole.slot)];
      args[hole.arg] = hole.number ? ir::scalar_value(t) : Value(t);
      continue;
    }
    std::vector<Tensor> list;
    list.reserve(hole.list_slots.size());
    for (int s : hole.list_slots) list.push_back(s < 0 ? Tensor() : slots[static_cast<size_t>(s)]);
    args[hole.arg] = std::move(list);
  }
  return args;
}

// A higher-order op: its kernel gets each subgraph as a function that runs the subgraph's plan
// (inputs made contiguous at offset 0, the layout the plan was made for).
std::vector<Tensor> run_higher_order(const PlannedStep& planned, const std::vector<Tensor>& slots) {
  const CompiledStep& step = *planned.step;
  std::vector<Value> args = bound_args(planned, slots);
  for (size_t k = 0; k < step.subgraphs.size(); ++k) {
    const ExecutionPlan* plan = planned.subplans[k].get();
    const CompiledGraph* graph = step.subgraphs[k].second.get();
    args[step.subgraphs[k].first] = Value(GraphFn([plan, graph](const std::vector<Tensor>& in) {
      std::vector<Tensor> inputs;
      inputs.reserve(in.size());
      for (const Tensor& t : in) {
        const bool planned_layout =
            t.is_contiguous() && t.storage_offset().maybe_int() == std::optional<int64_t>(0);
        inputs.push_back(planned_layout ? t : t.clone());
      }
      return execute(*plan, *graph, inputs);
    }));
  }
  return step.op->cpu_alloc(OpArgs(*step.op, std::move(args)));
}

// A step sized when it runs: its arguments bound with this run's symbols, run as eager
// execution runs it (subgraphs through the interpreter).
std::vector<Tensor> run_sized_at_run(const CompiledStep& step, const CompiledGraph& graph,
                                     const std::vector<Tensor>& slots, const Symbols& symbols) {
  const ir::Node& node = *step.node;
  const std::string where = "runtime: node " + ir::detail::node_label(node) + ": ";
  std::vector<Value> values;
  for (size_t a = 0; a < node.args().size(); ++a) {
    values.push_back(ir::argument_value(
        node.args()[a], step.op->parsed.arguments[a].type,
        [&](const ir::ValueRef& ref) { return slots[static_cast<size_t>(graph.slot(ref))]; },
        [&](sym::ExprPtr e) {
          const auto v = ir::detail::evaluate_with(e, symbols);
          XPORT_CHECK(v.has_value(), InvalidInput, where, sym::str(e),
                      " cannot be computed from the symbols known when it runs");
          return *v;
        },
        [&](const ir::SubgraphRef& g) -> GraphFn {
          return [sub = g.graph, &symbols](const std::vector<Tensor>& in) {
            return ir::interpret(*sub, in, symbols);
          };
        }));
  }
  std::vector<Tensor> outs = run_eager(bind_args(*step.op, std::move(values)));
  XPORT_CHECK(outs.size() == node.outputs().size(), InvalidInput, where, "produced ", outs.size(),
              " values, the graph has ", node.outputs().size());
  return outs;
}

std::vector<Tensor> run_step_at_run(const PlannedStep& planned, const CompiledGraph& graph,
                                    const std::vector<Tensor>& slots, Symbols& symbols) {
  const CompiledStep& step = *planned.step;
  std::vector<Tensor> outs = planned.sized_at_run ? run_sized_at_run(step, graph, slots, symbols)
                                                  : run_higher_order(planned, slots);
  if (step.binds) ir::detail::bind_unbacked(*step.node, outs, symbols);
  return outs;
}

std::vector<Tensor> execute(const ExecutionPlan& plan, const CompiledGraph& graph,
                            const std::vector<Tensor>& placeholders, std::vector<double>* step_ms) {
  const ArenaLease lease(plan);  // outlives `slots`, whose tensors view the arena
  // Steps sized when they run read the symbols; unbacked ones get their values as the run goes.
  Symbols run_symbols;
  if (graph.has_unbacked || plan.stats.run_time_steps > 0) run_symbols = plan.symbols;
  std::vector<Tensor> slots(static_cast<size_t>(graph.num_slots));
  for (size_t p = 0; p < placeholders.size(); ++p) {
    slots[static_cast<size_t>(graph.placeholder_slots[p])] = placeholders[p];
  }
  std::vector<Tensor> outs;
  for (size_t index = 0; index < plan.steps.size(); ++index) {
    const PlannedStep& planned = plan.steps[index];
    const CompiledStep& step = *planned.step;
    const auto first = static_cast<size_t>(step.first_slot);
    if (step.kind == StepKind::View && !planned.sized_at_run) {
      const std::shared_ptr<Storage>& base =
          slots[static_cast<size_t>(planned.alias_slot)].storage();
      for (size_t o = 0; o < planned.outputs.size(); ++o) {
        slots[first + o] = Tensor::make(base, planned.outputs[o]);
      }
      continue;
    }
    // Adds the wall time of `run` to the step's entry, when timing (reading the clock costs
    // about 20 ns, twice per step: only when asked).
    const auto timed = [&](auto&& run) {
      if (step_ms == nullptr) {
        run();
        return;
      }
      const auto start = std::chrono::steady_clock::now();
      run();
      (*step_ms)[index] +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
    };
    outs.clear();
    if (planned.sized_at_run || step.kind == StepKind::HigherOrder) {
      timed([&] { outs = run_step_at_run(planned, graph, slots, run_symbols); });
    } else {
      for (size_t o = 0; o < planned.outputs.size(); ++o) {
        const TensorMeta& meta = planned.outputs[o];
        switch (planned.placement[o]) {
          case Placement::Arena:
            outs.push_back(Tensor::make(lease.arena(), meta));
            break;
          case Placement::Heap:
            outs.push_back(Tensor::make(Storage::allocate(storage_bytes(meta)), meta));
            break;
          case Placement::Alias:
            outs.push_back(slots[static_cast<size_t>(planned.alias_slot)]);
            break;
          case Placement::None:
            outs.emplace_back();
            break;
          case Placement::Returned:
            XPORT_FAIL(Internal, "runtime: a kernel step has an output its kernel returns");
        }
      }
      if (planned.run_kernel) {
        std::vector<Value> args = bound_args(planned, slots);
        timed([&] { (*step.kernel)(OpArgs(*step.op, std::move(args)), outs); });
      }
      if (step.binds) ir::detail::bind_unbacked(*step.node, outs, run_symbols);
    }
    for (size_t o = 0; o < outs.size(); ++o) slots[first + o] = std::move(outs[o]);
  }
  std::vector<Tensor> results;
  results.reserve(graph.output_slots.size());
  for (size_t r = 0; r < graph.output_slots.size(); ++r) {
    const Tensor& t = slots[static_cast<size_t>(graph.output_slots[r])];
    results.push_back(plan.copy_output[r] ? t.clone() : t);
  }
  return results;
}

}  // namespace xport::runtime
