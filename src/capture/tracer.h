#pragma once
// The tracer: while installed as the thread's dispatch interceptor, every op call runs the op's
// meta function on fake tensors (sizes, no data) and appends a node to the graph. In-place ops
// become their functional form; real tensors that reach an op are parameters or buffers lifted
// before tracing, or constants from the enclosing scope, lifted as they appear.

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/shape_env.h"
#include "xport/ir/ir.h"
#include "xport/ops/op_registry.h"
#include "xport/program/exported_program.h"

namespace xport::capture {

/// Stored in a fake tensor's TensorImpl::capture_info: the graph value it stands for.
struct TracedValue {
  ir::ValueRef ref;
  bool is_view = false;  // made by a view op: shares memory with its base
  /// How the view was made: its op, the arguments (its base among them) and which output it is.
  /// An in-place update of the base takes the view again from the new value, so that the view
  /// shows the update as it does in eager (PyTorch's functionalization replays views the same
  /// way).
  const OpDef* view_op = nullptr;
  std::vector<Value> view_args;
  size_t view_output = 0;
  std::vector<std::weak_ptr<TracedValue>> views;  // views taken of this value
  /// The view this one was taken of, kept alive with it: a temporary in a chain
  /// (x.reshape(...).slice(...)) must still pass its base's update on to the views of it.
  std::shared_ptr<TracedValue> base_view;
};

/// A graph input (a buffer, a user input) updated in place while tracing.
struct InputMutation {
  const ir::Node* placeholder = nullptr;
  Tensor tensor;       ///< the traced tensor: its value at the end is the input's new value
  std::string source;  ///< the user's line of the first update
};

class Tracer : public DispatchInterceptor {
 public:
  /// A tracer for `graph`; with `outer`, for a subgraph of the graph `outer` traces (a cond
  /// branch): tensors of enclosing graphs and real tensors it meets become placeholders of the
  /// subgraph, listed in closures(), which the node passes in.
  Tracer(ir::Graph& graph, std::shared_ptr<ShapeEnv> env, Tracer* outer = nullptr);

  std::vector<Tensor> intercept(const OpArgs& args) override;
  /// A fresh unbacked symbol for an output size only the data decides (nonzero's meta); the
  /// node recorded next binds it to that output dim.
  SymInt new_data_dependent_size(const OpArgs& args, int64_t lo, int64_t hi) override;
  /// Records aten::item(t) and returns a fresh unbacked symbol bound to its value.
  SymInt item_int(const Tensor& t) override;
  /// Records aten::item(t) and returns a symbolic float holding its value (see FloatNode).
  SymFloat item_float(const Tensor& t) override;

  /// A fake tensor standing for `ref`, with `meta` (symbolic sizes).
  Tensor make_fake(const TensorMeta& meta, ir::ValueRef ref);
  /// Makes `t` (a parameter or buffer; in a subgraph, an outer tensor) stand for the
  /// placeholder `ref` when an op uses it.
  void lift(const Tensor& t, ir::ValueRef ref);
  /// The graph value of `t`: its fake value, its lifted placeholder, or a new constant (in a
  /// subgraph: a new placeholder for an outer or real tensor).
  ir::ValueRef value_of(const Tensor& t);
  /// Appends a call with given output specs (a higher-order op's node) and returns fake tensors
  /// for its outputs.
  std::vector<Tensor> add_node(const OpDef& op, std::vector<ir::Argument> args,
                               std::vector<ir::TensorSpec> specs,
                               std::vector<ir::UnbackedBinding> bindings = {});
  /// Fake-tensor metadata for a spec, its sizes as symbols of this export.
  TensorMeta meta_of(const ir::TensorSpec& spec) const;
  /// The next unused subgraph name for `base` in this graph: `true_graph_0`, `true_graph_1`.
  std::string subgraph_name(const std::string& base);
  /// In a subgraph: a new placeholder standing for the outer tensor `outer`, named after its
  /// value there, with `meta` (the outer tensor's, or a slice of it).
  ir::ValueRef add_subgraph_input(const Tensor& outer, const TensorMeta& meta);
  /// In a subgraph: the outer tensors it lifted to placeholders, in placeholder order.
  const std::vector<Tensor>& closures() const { return closures_; }
  bool is_subgraph() const { return outer_ != nullptr; }
  const std::shared_ptr<ShapeEnv>& env() const { return env_; }

  /// Graph inputs updated in place, in the order of their first update.
  const std::vector<InputMutation>& mutations() const { return mutations_; }
  /// Real tensors from the enclosing scope lifted as constants: (placeholder name, tensor).
  const std::vector<std::pair<std::string, Tensor>>& constants() const { return constants_; }

  /// Graph metadata for a node made now: the user's source line and the module stack (or the
  /// inherited metadata while re-tracing a node).
  ir::NodeMeta node_meta() const;
  /// Ops in `table` run their decomposition instead of being recorded (run_decompositions).
  void set_decompositions(const DecompositionTable* table) { decompositions_ = table; }
  /// While set, new nodes take this metadata (the node being re-traced) instead of the stack's.
  void set_inherited_meta(const ir::NodeMeta* meta) { inherited_meta_ = meta; }

  ir::TensorSpec spec_of(const TensorMeta& meta) const;

 private:
  std::vector<Tensor> record(const OpArgs& args);
  std::vector<Tensor> functionalize(const OpArgs& args);
  void check_mutable(const Tensor& t, const std::string& op_name);
  /// Whether `view`'s base is out of every other tensor's reach (see check_mutable).
  bool sole_view_of_a_hidden_base(const TracedValue& view) const;
  // Makes `t` stand for `next` from now on (t was updated in place); views of it are taken
  // again from `next`.
  void rebind(const Tensor& t, const Tensor& next);
  std::vector<std::weak_ptr<TracedValue>>& views_of(const Tensor& t);
  /// Records `view` again from its base's current value (see TracedValue::view_op).
  void retake(const std::shared_ptr<TracedValue>& view);
  ir::Argument to_argument(const Value& v, const xport::Argument& schema_arg);
  /// The graph value of a symbolic float (its one-element tensor); refused when another graph
  /// (outside this subgraph) computes it.
  ir::ValueRef float_argument(const Tensor& value);
  /// Records aten::item(t); returns the fake one-element value.
  Tensor record_item(const Tensor& t);
  bool owns(const ir::ValueRef& ref) const;
  bool in_scope(const ir::ValueRef& ref) const;

  ir::Graph& graph_;
  std::shared_ptr<ShapeEnv> env_;
  Tracer* outer_ = nullptr;
  std::vector<Tensor> closures_;
  std::vector<sym::ExprPtr> pending_sizes_;  // made by the meta function of the node being recorded
  std::unordered_map<std::string, int> subgraph_counts_;
  std::unordered_map<const TensorImpl*, ir::ValueRef> lifted_;
  // Views taken of lifted real tensors (parameters, buffers, constants).
  std::unordered_map<const TensorImpl*, std::vector<std::weak_ptr<TracedValue>>> lifted_views_;
  std::vector<InputMutation> mutations_;
  std::vector<std::pair<std::string, Tensor>> constants_;
  const DecompositionTable* decompositions_ = nullptr;
  const ir::NodeMeta* inherited_meta_ = nullptr;
};

/// A lifted parameter's or buffer's placeholder name, as torch.export names them:
/// ("p_", "layers.0.weight") -> "p_layers_0_weight".
std::string lifted_input_name(const std::string& prefix, const std::string& path);

/// The traced value of a fake tensor, or null for a real one.
TracedValue* traced(const Tensor& t);
/// The tracer capturing on this thread (the innermost one, inside a cond branch), or null.
Tracer* active_tracer();

}  // namespace xport::capture
