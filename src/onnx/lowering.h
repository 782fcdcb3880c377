#pragma once
// One lowering per op: what turns a call of it into ONNX nodes. A lowering reads the node's
// arguments by their schema names through NodeLowering and binds each of the node's results to
// an ONNX value. The table is keyed by OpDef, resolved from the op names once.
#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "onnx/graph_builder.h"

namespace xport::onnx {

/// A dim counted from the front (a negative dim counts from the end of `rank` dims).
inline int64_t wrap_dim(int64_t dim, size_t rank) {
  return dim < 0 ? dim + static_cast<int64_t>(rank) : dim;
}

/// The values some node or the output reads, as (node, result index).
using UsedValues = std::set<std::pair<const ir::Node*, int>>;

/// A call being lowered: its arguments by name, its results' specs, and the graph to add to.
class NodeLowering {
 public:
  NodeLowering(GraphBuilder& g, const ir::Node& node, const UsedValues& used)
      : g(g), node_(node), used_(used) {}

  GraphBuilder& g;
  const ir::Node& node() const { return node_; }

  // ---- arguments, by schema name ----
  bool is_none(const char* name) const { return node_.arg(name).is_none(); }
  /// A tensor argument's ONNX value.
  const std::string& tensor(const char* name) const;
  /// A tensor argument converted to `dtype`.
  std::string tensor_as(const char* name, DType dtype) const {
    return g.cast(tensor(name), spec(name).dtype, dtype);
  }
  /// The spec of a tensor argument.
  const ir::TensorSpec& spec(const char* name) const;
  /// The tensors of a `Tensor[]` / `Tensor?[]` argument (empty strings for None).
  std::vector<std::string> tensors(const char* name) const;
  std::vector<const ir::TensorSpec*> specs(const char* name) const;
  /// A constant int (UnsupportedOp naming the argument when it is symbolic).
  int64_t integer(const char* name) const;
  std::optional<int64_t> optional_integer(const char* name) const;
  std::vector<int64_t> integers(const char* name) const;
  /// An int dim argument counted from the front: a negative one wraps by the rank of tensor
  /// argument `of`.
  int64_t dim(const char* name = "dim", const char* of = "self") const {
    return wrap_dim(integer(name), spec(of).sizes.size());
  }
  /// A size, possibly symbolic.
  sym::ExprPtr size(const char* name) const;
  std::vector<sym::ExprPtr> sizes(const char* name) const;
  double real(const char* name) const;
  /// A `bool[]` argument (`output_mask`).
  std::vector<bool> bools(const char* name) const;
  bool flag(const char* name) const;
  std::optional<DType> dtype(const char* name) const;
  std::string str(const char* name) const;
  /// A Scalar argument (a number, a size, or a value the graph computes: item()'s) as a 0-D
  /// tensor of `dtype`.
  std::string scalar(const char* name, DType dtype) const;
  /// A constant Scalar argument's value (UnsupportedOp when the graph computes it).
  std::optional<double> constant_scalar(const char* name) const;
  /// Whether the op's schema takes a Tensor as argument `name` (a Scalar the graph computes,
  /// item()'s value, is a graph value too, but a number to the op).
  bool takes_tensor(const char* name) const;
  /// A Tensor or Scalar argument as a value of `dtype`: a tensor converted, a number as a 0-D
  /// tensor.
  std::string operand(const char* name, DType dtype) const {
    return takes_tensor(name) ? tensor_as(name, dtype) : scalar(name, dtype);
  }
  /// Whether a Scalar argument is a float (for type promotion).
  bool scalar_is_float(const char* name) const;
  /// The dtype PyTorch computes in for these arguments (tensors, 0-D tensors and numbers by
  /// its promotion rules): what a comparison compares in.
  DType promoted(std::initializer_list<const char*> names) const;

  // ---- results ----
  const ir::TensorSpec& out_spec(int index = 0) const { return node_.outputs().at(index); }
  DType out_dtype(int index = 0) const { return out_spec(index).dtype; }
  int num_outputs() const { return static_cast<int>(node_.outputs().size()); }
  /// A fresh ONNX name for result `index` (not yet bound).
  std::string out_name(int index = 0) const;
  /// Binds result `index` to `value`.
  void set(int index, const std::string& value) const;
  void set(const std::string& value) const { set(0, value); }
  /// Adds a node whose outputs are the node's results.
  void emit(const std::string& op_type, std::vector<std::string> inputs,
            std::vector<::onnx::AttributeProto> attrs = {}) const;
  /// Whether no node reads result `index` (it may then be left without a value).
  bool unused(int index) const { return used_.count({&node_, index}) == 0; }

  /// UnsupportedOp naming the op, the node, its source line and `why`.
  [[noreturn]] void refuse(const std::string& why) const;

 private:
  const ir::Node& node_;
  const UsedValues& used_;
};

using LowerFn = std::function<void(NodeLowering&)>;

/// An `int[N]` argument with one entry per spatial dim: a single value (`int[2] stride=1`) is
/// repeated to `count` entries.
std::vector<int64_t> per_dim(const NodeLowering& n, const char* name, size_t count);
/// `v` then `v` again: ONNX's pads (every dim's start, then every dim's end).
std::vector<int64_t> twice(const std::vector<int64_t>& v);

/// The lowering of `op`, or null when it has none.
const LowerFn* find_lowering(const OpDef& op);

/// Lowers the calls of `graph` into `g`, whose placeholders are already bound; returns the ONNX
/// values of the graph's results. Throws UnsupportedOp for a call with no lowering.
std::vector<std::string> lower_calls(const ir::Graph& graph, GraphBuilder& g);

/// Registration: each family's lowerings, by op name.
using LoweringList = std::vector<std::pair<std::string, LowerFn>>;
LoweringList pointwise_lowerings();
LoweringList shape_lowerings();
LoweringList reduction_lowerings();
LoweringList nn_lowerings();
LoweringList convolution_lowerings();
LoweringList pooling_lowerings();
LoweringList embedding_lowerings();
LoweringList factory_lowerings();
LoweringList control_flow_lowerings();
LoweringList spectral_lowerings();
LoweringList quantize_lowerings();

/// A body graph (If's branch, Loop's or Scan's body) from an xport subgraph: its placeholders
/// read `inputs` (values of the enclosing graph, or the body's own inputs when `body_inputs`
/// names them), its results become the body's outputs (with their dtypes).
::onnx::GraphProto lower_body(const ir::Graph& subgraph, GraphBuilder& parent,
                              const std::vector<std::string>& inputs,
                              const std::vector<std::pair<std::string, const ir::TensorSpec*>>&
                                  body_inputs = {},
                              const std::string& name = "body");

/// How much of a value's shape a value info states.
enum class ShapeDetail {
  kNone,  ///< the element type only
  kRank,  ///< the rank, with the dims that are constants (the others left unknown)
  kFull,  ///< every dim: a constant or a named symbol
};

/// A value info: name, element type and as much of the shape as `detail` asks for.
::onnx::ValueInfoProto value_info(const std::string& name, const ir::TensorSpec& spec,
                                  ShapeDetail detail,
                                  const std::function<std::string(sym::ExprPtr)>& dim_name = {});

}  // namespace xport::onnx
