#pragma once
// The plan for one set of input shapes: each step's bound arguments, its outputs' concrete
// layouts and where they live (an arena offset, a fresh allocation for graph outputs, or a view),
// made once and then run by any number of threads.

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "runtime/compiled_graph.h"
#include "xport/runtime.h"
#include "xport/runtime/frame_pool.h"

namespace xport::runtime {

enum class Placement : uint8_t {
  Arena,  ///< at a planned offset in the run's arena
  Heap,   ///< allocated per run: a graph output, or a value a graph output views
  Alias,   ///< shares the storage of the step's aliased argument (views, in-place)
  Returned,  ///< made by the step itself (a higher-order op's results)
  None       ///< a None result (an unrequested gradient): an undefined tensor
};

/// Where a step's argument takes run-time tensors from: one slot, or a list (-1: None).
struct TensorHole {
  size_t arg = 0;
  int slot = -1;
  bool list = false;
  std::vector<int> list_slots = {};
  bool number = false;  ///< a Scalar argument the graph computes: the slot's value, not the tensor
};

struct PlannedStep {
  const CompiledStep* step = nullptr;
  std::vector<Value> args;  ///< bound once; tensor arguments are filled in per run from holes
  std::vector<TensorHole> holes;
  int alias_slot = -1;  ///< View / InPlace: the slot of the aliased argument
  std::vector<TensorMeta> outputs;
  std::vector<Placement> placement;
  bool run_kernel = true;  ///< false when every output is empty
  /// HigherOrder: a plan per subgraph (CompiledStep::subgraphs' order), for the same symbols.
  std::vector<std::shared_ptr<const class ExecutionPlan>> subplans = {};
  /// Sized when it runs: its sizes use a symbol only the data decides (an unbacked symbol, or a
  /// value of such a step), so it binds its arguments and allocates its outputs then, as eager
  /// execution does. Every other step stays planned.
  bool sized_at_run = false;
  /// Some output is made anew in each run (allocated for the caller, or a view or in-place
  /// update of a value made per run); the others stay in the frame.
  bool per_run = false;
  /// The holes a run refills (indices into `holes`): those reading a value made per run, and
  /// graph-computed numbers, whose data changes; a frame keeps the others bound.
  std::vector<size_t> run_holes = {};
};

/// One run's memory and calls, made once for a plan and reused by each run that leases it: the
/// arena, the slots that keep one tensor per frame (results in the arena, views of them and of
/// weights), and each kernel step's arguments and outputs bound to them. A run fills in only
/// what it is given or makes, as ExecuTorch's planned method does.
struct Frame {
  std::shared_ptr<Storage> arena;
  std::vector<Tensor> slots;
  std::vector<OpArgs> calls;              ///< per plan step (kernel steps' are bound)
  std::vector<std::vector<Tensor>> outs;  ///< per plan step: the tensors its kernel writes
  /// Every hole and view was bound once, with the weights the last run gave.
  bool bound = false;
};

class ExecutionPlan {
 public:
  ExecutionPlan() : frames_([this] { return make_frame(); }) {}
  ExecutionPlan(const ExecutionPlan&) = delete;
  ExecutionPlan& operator=(const ExecutionPlan&) = delete;

  std::vector<PlannedStep> steps;
  std::vector<bool> copy_output;  ///< outputs that view a weight are copied (never shared)
  PlanStats stats;
  /// The symbol values the plan was made for (the run adds the unbacked ones it binds).
  std::unordered_map<sym::ExprPtr, int64_t> symbols;
  /// Per slot: its tensor is given or made in each run (user inputs, results allocated for the
  /// caller, what higher-order and data-sized steps return, and views of these).
  std::vector<bool> slot_per_run;
  std::vector<int> run_slots;  ///< the slots per run, listed

  /// A frame for one run: a free one, or a new one.
  FramePool<Frame>::Lease frame() const { return frames_.acquire(); }

 private:
  std::unique_ptr<Frame> make_frame() const;
  FramePool<Frame> frames_;
};

/// Plans `graph` for these placeholder tensors (weights, then the user's inputs, contiguous and
/// at offset 0) and symbol values. Only reads the tensors' layouts.
std::unique_ptr<ExecutionPlan> make_plan(const CompiledGraph& graph,
                                         const std::vector<Tensor>& placeholders,
                                         const std::vector<bool>& is_user_input,
                                         const std::unordered_map<sym::ExprPtr, int64_t>& symbols);

/// Runs subgraph `k` of a higher-order step on inputs laid out as its plan expects.
using PlannedBody = std::function<std::vector<Tensor>(size_t k, const std::vector<Tensor>& inputs)>;

/// Runs a higher-order step's op over `slots` (each slot's tensor, those it reads at least); its
/// kernel runs subgraph k by `body`, with the inputs made contiguous at offset 0 first (the
/// layout the subgraph's plan was made for).
std::vector<Tensor> run_higher_order(const PlannedStep& planned, const std::vector<Tensor>& slots,
                                     const PlannedBody& body);

/// Runs a step that is not planned as a kernel call: a higher-order op (with its subgraphs'
/// plans), a composite op (its decomposition, eagerly, each result laid out as planned) or a
/// step sized when it runs (as eager execution runs it), over `slots` (each slot's
/// tensor, those it reads at least); adds the unbacked symbols it binds to `symbols`.
std::vector<Tensor> run_step_at_run(const PlannedStep& planned, const CompiledGraph& graph,
                                    const std::vector<Tensor>& slots,
                                    std::unordered_map<sym::ExprPtr, int64_t>& symbols);

/// Runs a plan; thread-safe. With `step_ms` (one entry per plan step), adds each kernel step's
/// wall time to it.
std::vector<Tensor> execute(const ExecutionPlan& plan, const CompiledGraph& graph,
                            const std::vector<Tensor>& placeholders,
                            std::vector<double>* step_ms = nullptr);

}  // namespace xport::runtime
