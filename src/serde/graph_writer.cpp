// An ir::Graph's nodes and arguments as torch.export's serialized graph; value names as
// PyTorch's graphs give them (getitem for the outputs of multi-output nodes).

#include "ir/ir_util.h"
#include "serde/graph_writer.h"
#include "serde/pt2_format.h"
#include "serde/write_values.h"
#include "xport/core/error.h"

namespace xport::serde {

using Json = GraphWriter::Json;

// `inputs`: one Argument per graph input, the placeholders and the constant inputs.
Json GraphWriter::graph_json(Json inputs) {
  Json g;
  // The input assertions first; the symbolic-size nodes a call's arguments need just before
  // it; the nodes that name the unbacked symbols a call binds just after it.
  Json nodes = Json::array();
  auto flush = [&] {
    for (Json& n : sym_nodes_) nodes.push_back(std::move(n));
    sym_nodes_ = Json::array();
  };
  flush();
  for (const auto& node : graph_.nodes()) {
    if (node->kind() != ir::NodeKind::Call) continue;
    Json n = node_json(*node);
    flush();
    nodes.push_back(std::move(n));
    name_bound_symbols(*node);
    flush();
  }
  Json outputs = Json::array();
  if (const ir::Node* out = graph_.output()) {
    for (const ir::Argument& a : out->args()) outputs.push_back(argument(a, nullptr));
  }
  flush();
  g["inputs"] = std::move(inputs);
  g["outputs"] = std::move(outputs);
  g["nodes"] = std::move(nodes);
  Json values = Json::object();
  for (const auto& node : graph_.nodes()) {
    // Their outputs are a SymInt or a SymFloat in PyTorch's graphs.
    if (binds_value(*node) || is_float_number(*node)) continue;
    for (size_t i = 0; i < node->outputs().size(); ++i) {
      if (node->outputs()[i].none) continue;
      values[value_name(node->out(static_cast<int>(i)))] = tensor_meta(node->outputs()[i]);
    }
  }
  g["tensor_values"] = std::move(values);
  g["sym_int_values"] = sym_values_;
  g["sym_bool_values"] = sym_bool_values_;
  g["is_single_tensor_return"] = false;
  g["custom_obj_values"] = Json::object();
  g["sym_float_values"] = sym_float_values_;
  return g;
}

// `base`, `base_1`, ...: the first not yet used.
std::string GraphWriter::unique(const std::string& base) {
  int& count = used_[base];
  std::string name = count == 0 ? base : base + "_" + std::to_string(count);
  while (used_.count(name) && name != base) name = base + "_" + std::to_string(++count);
  ++count;
  used_[name] = 1;
  return name;
}


// A value is named by its node, except the values of a node with several (or a list of)
// outputs, which are named like PyTorch's getitem nodes.
void GraphWriter::name_values() {
  for (const auto& node : graph_.nodes()) used_[node->name()] = 1;
  for (const auto& node : graph_.nodes()) {
    const bool multi = ir::detail::is_multi_output(*node);
    for (size_t i = 0; i < node->outputs().size(); ++i) {
      names_[key(node->out(static_cast<int>(i)))] = multi ? unique("getitem") : node->name();
    }
  }
}

// A higher-order op's subgraph, written as its own graph (names are its own). A predicate
// (while_loop's cond_fn) returns its one tensor itself, not a tuple of it.
Json GraphWriter::subgraph(const ir::SubgraphRef& g, bool single_tensor_return) {
  GraphWriter writer(*g.graph);
  Json inputs = Json::array();
  for (const ir::Node* p : g.graph->placeholders()) {
    inputs.push_back(Json{{"as_tensor", Json{{"name", p->name()}}}});
  }
  Json graph = writer.graph_json(inputs);
  graph["is_single_tensor_return"] = single_tensor_return;
  return Json{{"as_graph", Json{{"name", g.name}, {"graph", std::move(graph)}}}};
}

// One argument, by the kind of value it holds; `param` (null for graph outputs) settles
// the empty list's kind and float-typed scalars.
Json GraphWriter::argument(const ir::Argument& a, const xport::Argument* param) {
  struct Visitor {
    GraphWriter& w;
    const xport::Argument* param;
    Json operator()(std::monostate) const { return Json{{"as_none", true}}; }
    Json operator()(const ir::ValueRef& r) const {
      const bool number = param && (param->type.base == BaseType::Scalar ||
                                    param->type.base == BaseType::Float);
      if (number) return Json{{"as_sym_float", Json{{"as_name", w.value_name(r)}}}};
      return Json{{"as_tensor", w.tensor_ref(r)}};
    }
    Json operator()(sym::ExprPtr e) const { return w.operand(e); }
    Json operator()(double v) const { return Json{{"as_float", float_value(v)}}; }
    Json operator()(bool v) const { return Json{{"as_bool", v}}; }
    Json operator()(const std::string& s) const {
      // A required Device (to.device) holds the device's name; PyTorch reads it as a Device.
      if (param && param->type.base == BaseType::Device)
        return Json{{"as_device", Json{{"type", s}, {"index", nullptr}}}};
      // PyTorch's MemoryFormat enum (torch/_export/serde/schema.py): contiguous 1, preserve 4.
      if (param && param->type.base == BaseType::MemoryFormat)
        return Json{{"as_memory_format", s == "contiguous_format" ? 1 : 4}};
      return Json{{"as_string", s}};
    }
    Json operator()(DType d) const { return Json{{"as_scalar_type", scalar_type_id(d)}}; }
    Json operator()(const std::vector<ir::Argument>& list) const { return w.list(list, param); }
    Json operator()(const ir::SubgraphRef& g) const { return subgraph(g, false); }
  };
  return std::visit(Visitor{*this, param}, a.value);
}

Json GraphWriter::list(const std::vector<ir::Argument>& list, const xport::Argument* param) {
  auto all = [&](auto pred) { return std::all_of(list.begin(), list.end(), pred); };
  auto holds = [](auto* tag) {
    return [](const ir::Argument& a) {
      return std::holds_alternative<std::remove_pointer_t<decltype(tag)>>(a.value);
    };
  };
  const BaseType base = param ? param->type.base : BaseType::Int;
  if (list.empty()) {
    switch (base) {
      case BaseType::Tensor:
        return Json{
            {param->type.element_optional ? "as_optional_tensors" : "as_tensors", Json::array()}};
      case BaseType::Float:
        return Json{{"as_floats", Json::array()}};
      case BaseType::Bool:
        return Json{{"as_bools", Json::array()}};
      default:
        return Json{{"as_ints", Json::array()}};
    }
  }
  Json items = Json::array();
  if (all(holds(static_cast<ir::ValueRef*>(nullptr)))) {
    for (const ir::Argument& a : list)
      items.push_back(tensor_ref(std::get<ir::ValueRef>(a.value)));
    return Json{{"as_tensors", std::move(items)}};
  }
  if (all([](const ir::Argument& a) {
        return a.is_none() || std::holds_alternative<ir::ValueRef>(a.value);
      })) {
    for (const ir::Argument& a : list) {
      items.push_back(a.is_none()
                          ? Json{{"as_none", true}}
                          : Json{{"as_tensor", tensor_ref(std::get<ir::ValueRef>(a.value))}});
    }
    return Json{{"as_optional_tensors", std::move(items)}};
  }
  if (all(holds(static_cast<sym::ExprPtr*>(nullptr)))) {
    bool symbolic = false;
    for (const ir::Argument& a : list) symbolic |= !sym::as_int(std::get<sym::ExprPtr>(a.value));
    for (const ir::Argument& a : list) {
      const sym::ExprPtr e = std::get<sym::ExprPtr>(a.value);
      if (!symbolic) {
        items.push_back(*sym::as_int(e));
      } else if (auto v = sym::as_int(e)) {
        items.push_back(Json{{"as_int", *v}});
      } else {
        items.push_back(Json{{"as_name", sym_name(e)}});
      }
    }
    return Json{{symbolic ? "as_sym_ints" : "as_ints", std::move(items)}};
  }
  if (all(holds(static_cast<double*>(nullptr)))) {
    for (const ir::Argument& a : list) items.push_back(float_value(std::get<double>(a.value)));
    return Json{{"as_floats", std::move(items)}};
  }
  if (all(holds(static_cast<bool*>(nullptr)))) {
    for (const ir::Argument& a : list) items.push_back(std::get<bool>(a.value));
    return Json{{"as_bools", std::move(items)}};
  }
  if (all(holds(static_cast<std::string*>(nullptr)))) {
    for (const ir::Argument& a : list) items.push_back(std::get<std::string>(a.value));
    return Json{{"as_strings", std::move(items)}};
  }
  XPORT_FAIL(Internal, "save: a list argument mixes kinds (", ir::Argument(list).str(),
             "); the archive schema has no such list");
}

Json GraphWriter::node_json(const ir::Node& node) {
  const Schema& schema = node.op()->parsed;
  // Higher-order ops as PyTorch writes them: `torch.ops.higher_order.cond`, positional
  // arguments without names, one as_tensor per output.
  const bool hop = node.op()->higher_order;
  Json n;
  // Python's own operators (`_operator.mul` on SymFloats) have no torch.ops name.
  n["target"] = schema.ns == "_operator" ? "_operator." + schema.name
                                         : "torch.ops." + schema.ns + "." + schema.name +
                                               (hop ? "" : "." + (schema.overload.empty()
                                                                      ? "default"
                                                                      : schema.overload));
  Json inputs = Json::array();
  for (size_t i = 0; i < node.args().size() && i < schema.arguments.size(); ++i) {
    const xport::Argument& param = schema.arguments[i];
    const auto* sub = std::get_if<ir::SubgraphRef>(&node.args()[i].value);
    const bool predicate = std::any_of(
        node.op()->subgraph_uses.begin(), node.op()->subgraph_uses.end(),
        [&](const SubgraphUse& u) {
          return u.graph_arg == static_cast<int>(i) && u.returns == SubgraphUse::Returns::Predicate;
        });
    inputs.push_back(Json{{"name", hop ? "" : param.name},
                          {"arg", sub ? subgraph(*sub, predicate) : argument(node.args()[i], &param)},
                          {"kind", param.kwarg_only ? kArgumentKeyword : kArgumentPositional}});
  }
  n["inputs"] = std::move(inputs);
  Json outputs = Json::array();
  if (schema.returns_list && !hop) {
    Json list = Json::array();
    for (size_t i = 0; i < node.outputs().size(); ++i) {
      list.push_back(tensor_ref(node.out(static_cast<int>(i))));
    }
    outputs.push_back(Json{{"as_tensors", std::move(list)}});
  } else {
    for (size_t i = 0; i < node.outputs().size(); ++i) {
      // A None result (an unrequested gradient) is PyTorch's as_none, with no tensor value.
      outputs.push_back(node.outputs()[i].none
                            ? Json{{"as_none", true}}
                            : Json{{"as_tensor", tensor_ref(node.out(static_cast<int>(i)))}});
    }
  }
  if (binds_value(node)) {
    outputs = Json::array({Json{{"as_sym_int", Json{{"as_name", node.name()}}}}});
  } else if (is_float_number(node)) {
    // No expression relates it to the inputs: each is a symbol of its own (zuf0, zuf1, ...).
    const std::string name = value_name(node.out(0));
    outputs = Json::array({Json{{"as_sym_float", Json{{"as_name", name}}}}});
    const std::string symbol = "zuf" + std::to_string(sym_float_values_.size());
    sym_float_values_[name] = Json{
        {"as_expr", Json{{"expr_str", "Symbol('" + symbol + "')"}, {"hint", nullptr}}}};
  }
  n["outputs"] = std::move(outputs);
  n["metadata"] = node_metadata(node.meta());
  n["is_hop_single_tensor_return"] = hop ? Json(false) : Json(nullptr);
  n["name"] = node.name();
  return n;
}

Json GraphWriter::node_metadata(const ir::NodeMeta& meta) {
  Json m = Json::object();
  if (!meta.source.empty()) m["stack_trace"] = stack_trace_of_source(meta.source);
  if (!meta.module_stack.empty()) {
    std::string stack;
    for (const auto& [path, type] : meta.module_stack) {
      XPORT_CHECK(
          path.find_first_of(",;") == std::string::npos && type.find(';') == std::string::npos,
          Internal, "save: module path '", path, "' or type '", type,
          "' contains ',' or ';', which nn_module_stack cannot hold");
      stack += (stack.empty() ? "" : ";") + path + "," + path + "," + type;
    }
    m["nn_module_stack"] = stack;
  }
  return m;
}

// "model.cpp:12" -> `File "model.cpp", line 12` (a Python traceback frame, as PyTorch writes).
std::string GraphWriter::stack_trace_of_source(const std::string& source) {
  const size_t colon = source.rfind(':');
  if (colon == std::string::npos || colon + 1 == source.size() ||
      source.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    return "File \"" + source + "\"";
  }
  return "File \"" + source.substr(0, colon) + "\", line " + source.substr(colon + 1);
}

}  // namespace xport::serde
