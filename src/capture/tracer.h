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
#include "xport/ir.h"
#include "xport/op_registry.h"
#include "xport/program.h"

namespace xport::capture {

/// Stored in a fake tensor's TensorImpl::capture_info: the graph value it stands for.
struct TracedValue {
  ir::ValueRef ref;
  bool is_view = false;    // made by a view op: shares memory with its base
  bool has_views = false;  // some view op was applied to it
};

class Tracer : public DispatchInterceptor {
 public:
  Tracer(ir::Graph& graph, std::shared_ptr<ShapeEnv> env);

  std::vector<Tensor> intercept(const OpArgs& args) override;

  /// A fake tensor standing for `ref`, with `meta` (symbolic sizes).
  Tensor make_fake(const TensorMeta& meta, ir::ValueRef ref);
  /// Makes `real` (a parameter or buffer) stand for the placeholder `ref` when an op uses it.
  void lift(const Tensor& real, ir::ValueRef ref);
  /// The graph value of `t`: its fake value, its lifted placeholder, or a new constant.
  ir::ValueRef value_of(const Tensor& t);

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
  ir::Argument to_argument(const Value& v, const xport::Argument& schema_arg);

  ir::Graph& graph_;
  std::shared_ptr<ShapeEnv> env_;
  std::unordered_map<const TensorImpl*, ir::ValueRef> lifted_;
  std::vector<std::pair<std::string, Tensor>> constants_;
  const DecompositionTable* decompositions_ = nullptr;
  const ir::NodeMeta* inherited_meta_ = nullptr;
};

/// The traced value of a fake tensor, or null for a real one.
TracedValue* traced(const Tensor& t);

}  // namespace xport::capture
