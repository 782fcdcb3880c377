#pragma once
// An ir::Graph as torch.export's serialized graph (schema 8): its nodes and arguments
// (graph_writer.cpp), and the symbolic sizes, which xport's graphs hold inline and PyTorch's
// compute with nodes of their own (graph_writer_symbols.cpp).

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xport/ir/ir.h"
#include "xport/program/exported_program.h"

namespace xport::serde {

class GraphWriter {
 public:
  using Json = nlohmann::ordered_json;

  explicit GraphWriter(const ir::Graph& graph) : graph_(graph) { name_values(); }

  /// The graph's JSON; `inputs`: one Argument per graph input, the placeholders and the
  /// constant inputs.
  Json graph_json(Json inputs);

  const std::string& value_name(const ir::ValueRef& r) const { return names_.at(key(r)); }

  /// Asserts a user input's dtype in the graph (aten._assert_tensor_metadata, as torch.export's
  /// training IR writes it): ep.module()'s input check compares shapes only.
  void assert_dtype(const std::string& input, DType dtype);
  /// Asserts the symbol's finite bounds in the graph, as torch.export writes runtime assertions.
  void assert_range(const SymbolSpec& s);
  /// `base`, `base_1`, ...: the first not yet used.
  std::string unique(const std::string& base);

 private:
  const ir::Graph& graph_;
  std::unordered_map<std::string, std::string> names_;  // "node#index" -> value name
  std::map<std::string, int> used_;                     // every node and value name
  Json sym_values_ = Json::object();
  Json sym_bool_values_ = Json::object();
  Json sym_float_values_ = Json::object();
  Json sym_nodes_ = Json::array();
  std::unordered_map<sym::ExprPtr, std::string> sym_names_;

  static std::string key(const ir::ValueRef& r) {
    return r.node->name() + "#" + std::to_string(r.index);
  }
  Json tensor_ref(const ir::ValueRef& r) const { return Json{{"name", value_name(r)}}; }

  // graph_writer.cpp: names, nodes, arguments.
  void name_values();
  Json node_json(const ir::Node& node);
  Json argument(const ir::Argument& a, const xport::Argument* param);
  Json list(const std::vector<ir::Argument>& list, const xport::Argument* param);
  static Json subgraph(const ir::SubgraphRef& g, bool single_tensor_return);
  static Json node_metadata(const ir::NodeMeta& meta);
  static std::string stack_trace_of_source(const std::string& source);

  // graph_writer_symbols.cpp: symbolic sizes and conditions as PyTorch's nodes.
  std::string sym_name(sym::ExprPtr e);
  std::string sym_op(const char* target, const char* base, Json a, Json b, sym::ExprPtr result);
  std::string sym_size_node(sym::ExprPtr symbol);
  std::string dim_size_node(const ir::Node* p, size_t d);
  static Json sym_node(const char* target, std::vector<std::pair<const char*, Json>> inputs,
                       const std::string& name, const char* kind = "as_sym_int");
  static Json sym_arg(const std::string& name);
  Json operand(sym::ExprPtr e);
  Json sym_bool_operand(sym::ExprPtr e);
  static bool binds_value(const ir::Node& node);
  static bool is_float_number(const ir::Node& node);
  void name_bound_symbols(const ir::Node& node);
  void assert_bound(const SymbolSpec& s, sym::ExprPtr symbol, bool lower, int64_t bound);
};

}  // namespace xport::serde
