#pragma once
// Building one ONNX graph (the model's, or a control-flow op's body) from an xport graph: value
// names, constants, attributes, and sizes computed from the program's symbols.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "xport/ir/ir.h"

namespace xport::onnx {

struct Options;

/// The ONNX element type of a dtype.
::onnx::TensorProto_DataType onnx_type(DType dtype);

/// An attribute of an ONNX node.
::onnx::AttributeProto attr(const std::string& name, int64_t value);
inline ::onnx::AttributeProto attr(const std::string& name, int value) {
  return attr(name, static_cast<int64_t>(value));
}
::onnx::AttributeProto attr(const std::string& name, double value);
::onnx::AttributeProto attr(const std::string& name, const std::string& value);
::onnx::AttributeProto attr(const std::string& name, const std::vector<int64_t>& values);
::onnx::AttributeProto attr(const std::string& name, ::onnx::GraphProto graph);
::onnx::AttributeProto attr(const std::string& name, ::onnx::TensorProto tensor);

/// What every graph of one model shares: the names in use (ONNX wants each value named once in
/// the whole model, subgraphs included), the options, the custom domains used.
struct ModelState {
  const Options* options = nullptr;
  ::onnx::ModelProto* model = nullptr;
  std::unordered_set<std::string> functions;  // `domain::name` of the functions added
  std::unordered_set<std::string> names;
  std::unordered_map<std::string, int> domains;  // custom domain -> opset version
  /// A name not used yet, from `hint` (`add`, `add_1`, ...).
  std::string fresh(const std::string& hint);
};

/// One ONNX graph being built. A body (If's branches, Loop's and Scan's bodies) has its parent's
/// scope: it reads the parent's values and symbols by name, as ONNX lets it.
class GraphBuilder {
 public:
  GraphBuilder(::onnx::GraphProto* graph, ModelState& model, const GraphBuilder* parent);

  ::onnx::GraphProto& graph() { return *graph_; }
  ModelState& model() { return model_; }

  // ---- values ----
  /// The ONNX name of an xport value (InvalidInput naming it when it was never lowered).
  const std::string& value(const ir::ValueRef& ref) const;
  bool has_value(const ir::ValueRef& ref) const { return find_value(ref) != nullptr; }
  void bind(const ir::ValueRef& ref, std::string name);
  /// A symbol's value as a one-element int64 tensor (shape [1]).
  void bind_symbol(sym::ExprPtr symbol, std::string name);

  // ---- nodes ----
  /// Adds a node of `op_type` (default domain unless `domain` is given) with one fresh output
  /// named from `hint`; returns that name.
  std::string add(const std::string& op_type, std::vector<std::string> inputs,
                  std::vector<::onnx::AttributeProto> attrs = {}, const std::string& hint = "");
  /// Adds a node whose outputs are `outputs` (names chosen by the caller).
  void add_to(const std::string& op_type, std::vector<std::string> inputs,
              std::vector<std::string> outputs, std::vector<::onnx::AttributeProto> attrs = {},
              const std::string& domain = "");

  // ---- constants ----
  /// A constant tensor of `dtype` with `values` converted to it; shape `dims` (a scalar when
  /// empty and one value). Deduplicated within the model's scope.
  std::string constant(DType dtype, const std::vector<double>& values,
                       const std::vector<int64_t>& dims);
  std::string scalar(DType dtype, double value) { return constant(dtype, {value}, {}); }
  /// An integer as a 0-D tensor of `dtype`, exactly (a double holds int64 to 2^53 only).
  std::string integer(DType dtype, int64_t value);
  /// A 1-D int64 constant.
  std::string ints(const std::vector<int64_t>& values);
  /// A value converted to `to` (itself when it already has that dtype).
  std::string cast(const std::string& value, DType from, DType to);

  // ---- sizes ----
  /// An integer expression over the program's symbols as a one-element int64 tensor (shape
  /// [1]); floor division and modulo as Python's (exact for any signs).
  std::string sym_int(sym::ExprPtr e);
  /// The same as a 0-D int64 tensor.
  std::string sym_scalar(sym::ExprPtr e);
  /// A boolean expression as a one-element bool tensor (shape [1]).
  std::string sym_bool(sym::ExprPtr e);
  /// Sizes as a 1-D int64 tensor (constants folded into one Constant when all are).
  std::string shape(const std::vector<sym::ExprPtr>& sizes);

 private:
  const std::string* find_value(const ir::ValueRef& ref) const;
  const std::string* find_symbol(sym::ExprPtr e) const;
  const std::string* find_constant(const std::string& key) const;

  ::onnx::GraphProto* graph_;
  ModelState& model_;
  const GraphBuilder* parent_;
  struct RefHash {
    size_t operator()(const ir::ValueRef& r) const {
      return std::hash<const void*>()(r.node) * 31 + static_cast<size_t>(r.index);
    }
  };
  std::unordered_map<ir::ValueRef, std::string, RefHash> values_;
  std::unordered_map<sym::ExprPtr, std::string> symbols_;  // expressions computed here too
  std::unordered_map<std::string, std::string> constants_;
};

}  // namespace xport::onnx
