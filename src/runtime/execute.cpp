// Runs an execution plan. Each run leases a frame (the arena, the tensors that stay in it, each
// kernel step's bound arguments) and fills in only what it is given or makes: the user's
// inputs, results allocated for the caller, and the steps that depend on them.
#include <algorithm>
#include <chrono>

#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "kernels/cpu/elementwise.h"
#include "ops/op_util.h"
#include "runtime/execution_plan.h"

namespace xport::runtime {
namespace {

using Symbols = ir::SymbolValues;

// This run's value of a hole: a slot's tensor (or the number it holds), or a list of them.
Value hole_value(const TensorHole& hole, const std::vector<Tensor>& slots) {
  if (!hole.list) {
    const Tensor& t = slots[static_cast<size_t>(hole.slot)];
    return hole.number ? ir::scalar_value(t) : Value(t);
  }
  std::vector<Tensor> list;
  list.reserve(hole.list_slots.size());
  for (int s : hole.list_slots) list.push_back(s < 0 ? Tensor() : slots[static_cast<size_t>(s)]);
  return Value(std::move(list));
}

// Inputs as a subgraph's plan expects them: contiguous, at offset 0.
std::vector<Tensor> planned_layout(const std::vector<Tensor>& in) {
  std::vector<Tensor> inputs;
  inputs.reserve(in.size());
  for (const Tensor& t : in) {
    const bool planned =
        t.is_contiguous() && t.storage_offset().maybe_int() == std::optional<int64_t>(0);
    inputs.push_back(planned ? t : t.clone());
  }
  return inputs;
}

}  // namespace

std::vector<Tensor> run_higher_order(const PlannedStep& planned, const std::vector<Tensor>& slots,
                                     const PlannedBody& body) {
  const CompiledStep& step = *planned.step;
  std::vector<Value> args = planned.args;
  for (const TensorHole& hole : planned.holes) args[hole.arg] = hole_value(hole, slots);
  for (size_t k = 0; k < step.subgraphs.size(); ++k) {
    args[step.subgraphs[k].first] = Value(GraphFn([k, &body](const std::vector<Tensor>& in) {
      return body(k, planned_layout(in));
    }));
  }
  return step.op->cpu_alloc(OpArgs(*step.op, std::move(args)));
}

namespace {

// The runtime's sizes are numbers: SymInt's == would make a symbolic bool.
bool same_ints(const std::vector<SymInt>& a, const std::vector<SymInt>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const SymInt& x, const SymInt& y) {
    return x.maybe_int() == y.maybe_int();
  });
}

bool has_layout(const Tensor& t, const TensorMeta& meta) {
  return t.dtype() == meta.dtype && same_ints(t.sizes(), meta.sizes) &&
         same_ints(t.strides(), meta.strides) &&
         t.storage_offset().maybe_int() == meta.storage_offset.maybe_int();
}

// A composite op: its decomposition, run eagerly. Each result gets the layout the plan gave it
// (the steps after it were planned for that), in storage of its own: a decomposition may return
// a view of an argument (reshape), which the plan does not know to keep alive.
std::vector<Tensor> run_composite(const PlannedStep& planned, const std::vector<Tensor>& slots) {
  const CompiledStep& step = *planned.step;
  std::vector<Value> args = planned.args;
  for (const TensorHole& hole : planned.holes) args[hole.arg] = hole_value(hole, slots);
  std::vector<Tensor> outs = run_eager(OpArgs(*step.op, std::move(args)));
  XPORT_CHECK(outs.size() == planned.outputs.size(), InvalidInput, "runtime: node ",
              ir::detail::node_label(*step.node), ": its decomposition made ", outs.size(),
              " values, the graph has ", planned.outputs.size());
  const auto reads = [&](const Tensor& out) {
    const auto shares = [&](int s) {
      return s >= 0 && slots[static_cast<size_t>(s)].storage() == out.storage();
    };
    for (const TensorHole& hole : planned.holes) {
      if (!hole.list ? shares(hole.slot)
                     : std::any_of(hole.list_slots.begin(), hole.list_slots.end(), shares)) {
        return true;
      }
    }
    return false;
  };
  for (size_t o = 0; o < outs.size(); ++o) {
    const TensorMeta& meta = planned.outputs[o];
    XPORT_CHECK(outs[o].dtype() == meta.dtype && same_ints(outs[o].sizes(), meta.sizes),
                InvalidInput, "runtime: node ", ir::detail::node_label(*step.node),
                ": its decomposition made a ", dtype_name(outs[o].dtype()),
                " result of sizes ", ops::shape_str(outs[o].sizes()), ", the graph records ",
                dtype_name(meta.dtype), " ", ops::shape_str(meta.sizes));
    if (has_layout(outs[o], meta) && !reads(outs[o])) continue;
    Tensor own = Tensor::make(Storage::allocate(storage_bytes(meta)), meta);
    kernels::cpu::copy_into(own, outs[o]);
    outs[o] = std::move(own);
  }
  return outs;
}

// A subgraph of a step sized when it runs, as a function: planned when called, for the sizes
// of the inputs it gets and the symbols known then, and run as any plan. A map's body gets
// inputs of one size in every call; the plan of the last sizes is kept for the next.
GraphFn subgraph_planned_at_run(const CompiledGraph& graph, const Symbols& symbols) {
  struct LastPlan {
    std::vector<std::vector<int64_t>> sizes;
    std::vector<DType> dtypes;
    std::shared_ptr<const ExecutionPlan> plan;
  };
  auto last = std::make_shared<LastPlan>();  // the kernel calls it from one thread
  return [&graph, &symbols, last](const std::vector<Tensor>& in) {
    const std::vector<Tensor> inputs = planned_layout(in);
    std::vector<std::vector<int64_t>> sizes;
    std::vector<DType> dtypes;
    for (const Tensor& t : inputs) {
      sizes.push_back(t.int_sizes());
      dtypes.push_back(t.dtype());
    }
    if (last->plan == nullptr || sizes != last->sizes || dtypes != last->dtypes) {
      last->plan = make_plan(graph, inputs, std::vector<bool>(inputs.size(), true), symbols);
      last->sizes = std::move(sizes);
      last->dtypes = std::move(dtypes);
    }
    return execute(*last->plan, graph, inputs);
  };
}

// A step sized when it runs: its arguments bound with this run's symbols, run as eager
// execution runs it; its subgraphs are planned when called.
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
          for (const auto& [arg, sub] : step.subgraphs) {
            if (arg == a) return subgraph_planned_at_run(*sub, symbols);
          }
          XPORT_FAIL(Internal, where, "subgraph ", g.name, " was not compiled");
        }));
  }
  std::vector<Tensor> outs = run_eager(bind_args(*step.op, std::move(values)));
  XPORT_CHECK(outs.size() == node.outputs().size(), InvalidInput, where, "produced ", outs.size(),
              " values, the graph has ", node.outputs().size());
  return outs;
}

// Drops what the run gave or made from the frame when it ends, normally or by an exception: the
// frame must not keep the caller's tensors alive (nor memory it no longer owns) between runs.
class RunCleanup {
 public:
  RunCleanup(const ExecutionPlan& plan, Frame& frame) : plan_(plan), frame_(frame) {}
  ~RunCleanup() {
    for (int s : plan_.run_slots) frame_.slots[static_cast<size_t>(s)] = Tensor();
    for (size_t i = 0; i < plan_.steps.size(); ++i) {
      const PlannedStep& planned = plan_.steps[i];
      for (size_t h : planned.run_holes) frame_.calls[i].set(planned.holes[h].arg, Value());
      if (!planned.per_run) continue;
      for (size_t o = 0; o < frame_.outs[i].size(); ++o) {
        if (plan_.slot_per_run[static_cast<size_t>(planned.step->first_slot) + o]) {
          frame_.outs[i][o] = Tensor();
        }
      }
    }
  }
  RunCleanup(const RunCleanup&) = delete;
  RunCleanup& operator=(const RunCleanup&) = delete;

 private:
  const ExecutionPlan& plan_;
  Frame& frame_;
};

}  // namespace

std::unique_ptr<Frame> ExecutionPlan::make_frame() const {
  auto frame = std::make_unique<Frame>();
  frame->arena = Storage::allocate(stats.arena_bytes);
  frame->slots.resize(slot_per_run.size());
  frame->calls.reserve(steps.size());
  frame->outs.resize(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlannedStep& planned = steps[i];
    frame->calls.emplace_back(*planned.step->op, planned.args);
    for (size_t o = 0; o < planned.placement.size(); ++o) {
      if (planned.placement[o] != Placement::Arena) {
        frame->outs[i].emplace_back();
        continue;
      }
      frame->outs[i].push_back(Tensor::make(frame->arena, planned.outputs[o]));
      frame->slots[static_cast<size_t>(planned.step->first_slot) + o] = frame->outs[i].back();
    }
  }
  return frame;
}

std::vector<Tensor> run_step_at_run(const PlannedStep& planned, const CompiledGraph& graph,
                                    const std::vector<Tensor>& slots, Symbols& symbols) {
  const CompiledStep& step = *planned.step;
  std::vector<Tensor> outs;
  if (planned.sized_at_run) {
    outs = run_sized_at_run(step, graph, slots, symbols);
  } else if (step.kind == StepKind::Composite) {
    outs = run_composite(planned, slots);
  } else {
    outs = run_higher_order(planned, slots, [&](size_t k, const std::vector<Tensor>& inputs) {
      return execute(*planned.subplans[k], *step.subgraphs[k].second, inputs);
    });
  }
  if (step.binds) ir::detail::bind_unbacked(*step.node, outs, symbols);
  return outs;
}

std::vector<Tensor> execute(const ExecutionPlan& plan, const CompiledGraph& graph,
                            const std::vector<Tensor>& placeholders, std::vector<double>* step_ms) {
  const FramePool<Frame>::Lease lease = plan.frame();
  Frame& frame = *lease;
  std::vector<Tensor>& slots = frame.slots;
  const RunCleanup cleanup(plan, frame);
  // A program gives the same weights (the same tensors) in every run; others bind the frame anew.
  bool bind_all = !frame.bound;
  for (size_t p = 0; p < placeholders.size(); ++p) {
    const auto s = static_cast<size_t>(graph.placeholder_slots[p]);
    if (plan.slot_per_run[s]) {
      slots[s] = placeholders[p];
    } else if (!slots[s].is_same(placeholders[p])) {
      slots[s] = placeholders[p];
      bind_all = true;
    }
  }
  frame.bound = false;  // until every step has run once with these weights
  // Steps sized when they run read the symbols; unbacked ones get their values as the run goes.
  Symbols run_symbols;
  if (graph.has_unbacked || plan.stats.run_time_steps > 0) run_symbols = plan.symbols;
  for (size_t index = 0; index < plan.steps.size(); ++index) {
    const PlannedStep& planned = plan.steps[index];
    const CompiledStep& step = *planned.step;
    const auto first = static_cast<size_t>(step.first_slot);
    if (step.kind == StepKind::View && !planned.sized_at_run) {
      if (!bind_all && !planned.per_run) continue;  // the frame's views stay
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
    if (planned.sized_at_run || step.kind == StepKind::HigherOrder ||
        step.kind == StepKind::Composite) {
      std::vector<Tensor> outs;
      timed([&] { outs = run_step_at_run(planned, graph, slots, run_symbols); });
      for (size_t o = 0; o < outs.size(); ++o) slots[first + o] = std::move(outs[o]);
      continue;
    }
    std::vector<Tensor>& outs = frame.outs[index];
    if (bind_all || planned.per_run) {
      for (size_t o = 0; o < outs.size(); ++o) {
        const TensorMeta& meta = planned.outputs[o];
        if (planned.placement[o] == Placement::Heap) {
          outs[o] = Tensor::make(Storage::allocate(storage_bytes(meta)), meta);
        } else if (planned.placement[o] == Placement::Alias) {
          outs[o] = slots[static_cast<size_t>(planned.alias_slot)];
        } else {
          continue;  // in the arena since the frame was made, or None
        }
        slots[first + o] = outs[o];
      }
    }
    if (planned.run_kernel) {
      OpArgs& call = frame.calls[index];
      if (bind_all) {
        for (const TensorHole& hole : planned.holes) call.set(hole.arg, hole_value(hole, slots));
      } else {
        for (size_t h : planned.run_holes) {
          call.set(planned.holes[h].arg, hole_value(planned.holes[h], slots));
        }
      }
      timed([&] { (*step.kernel)(call, outs); });
      // A kernel writes into its outputs; one that replaced an output (a custom op's may) has
      // its result copied where the plan put it.
      for (size_t o = 0; o < outs.size(); ++o) {
        Tensor& planned_out = slots[first + o];
        if (outs[o].is_same(planned_out)) continue;
        if (planned_out.defined()) kernels::cpu::copy_into(planned_out, outs[o]);
        outs[o] = planned_out;
      }
    }
    if (step.binds) ir::detail::bind_unbacked(*step.node, outs, run_symbols);
  }
  frame.bound = true;
  std::vector<Tensor> results;
  results.reserve(graph.output_slots.size());
  for (size_t r = 0; r < graph.output_slots.size(); ++r) {
    const Tensor& t = slots[static_cast<size_t>(graph.output_slots[r])];
    results.push_back(plan.copy_output[r] ? t.clone() : t);
  }
  return results;
}

}  // namespace xport::runtime
