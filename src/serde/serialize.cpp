// ExportedProgram -> torch.export's serialized schema (major 8) as JSON, plus the weight and
// constant payloads. Field order follows the schema's dataclasses, so output is deterministic.

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <unordered_map>

#include "ir/ir_util.h"
#include "serde/pt2_format.h"
#include "serde/serialize.h"
#include "xport/error.h"

namespace xport::serde {
namespace {

using Json = nlohmann::ordered_json;

// sympy's srepr, as torch.export writes expressions (`Mul(Integer(2), Symbol('s0', ...))`).
// PyTorch's loader sympifies the text: from `2*s0` it would make a symbol of unknown sign, and
// `(s0//2)` would become sympy's floor, not its FloorDiv. Symbols are sizes: positive integers.
bool is_unbacked_name(const std::string& name) {
  return name.size() > 1 && name[0] == 'u' &&
         name.find_first_not_of("0123456789", 1) == std::string::npos;
}

std::string srepr(sym::ExprPtr e) {
  auto call = [](const char* f, const std::vector<std::string>& args) {
    std::string out = std::string(f) + "(";
    for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
    return out + ")";
  };
  auto integer = [](int64_t v) { return "Integer(" + std::to_string(v) + ")"; };
  std::vector<std::string> args;
  switch (e->kind()) {
    case sym::ExprKind::Integer:
      return integer(e->value());
    case sym::ExprKind::Symbol:
      // PyTorch tells unbacked symbols (u0, from data) by their prefix; they may be negative.
      if (is_unbacked_name(e->name())) return "Symbol('" + e->name() + "', integer=True)";
      return "Symbol('" + e->name() + "', positive=True, integer=True)";
    case sym::ExprKind::Add:
      for (size_t i = 0; i < e->args().size(); ++i) {
        const int64_t c = e->coefficients()[i];
        args.push_back(c == 1 ? srepr(e->args()[i])
                              : call("Mul", {integer(c), srepr(e->args()[i])}));
      }
      if (e->value() != 0) args.push_back(integer(e->value()));
      return args.size() == 1 ? args[0] : call("Add", args);  // 2*s0 is an Add of one term
    case sym::ExprKind::Mul:
      for (size_t i = 0; i < e->args().size(); ++i) {
        const int64_t k = e->exponents()[i];
        args.push_back(k == 1 ? srepr(e->args()[i])
                              : call("Pow", {srepr(e->args()[i]), integer(k)}));
      }
      return args.size() == 1 ? args[0] : call("Mul", args);
    case sym::ExprKind::FloorDiv:
      return call("FloorDiv", {srepr(e->args()[0]), srepr(e->args()[1])});
    case sym::ExprKind::Mod:
      return call("PythonMod", {srepr(e->args()[0]), srepr(e->args()[1])});
    case sym::ExprKind::Min:
    case sym::ExprKind::Max:
      for (sym::ExprPtr a : e->args()) args.push_back(srepr(a));
      return call(e->kind() == sym::ExprKind::Min ? "Min" : "Max", args);
    default:
      XPORT_FAIL(Internal, "save: ", sym::str(e), " is not an integer expression");
  }
}

Json sym_int(sym::ExprPtr e) {
  if (e == nullptr) return Json{{"as_int", 0}};
  if (auto v = sym::as_int(e)) return Json{{"as_int", *v}};
  return Json{{"as_expr", Json{{"expr_str", srepr(e)}, {"hint", nullptr}}}};
}

// Non-finite floats are strings: JSON has no literal for them (Python's json writes the
// non-standard Infinity/NaN, which strict parsers refuse).
Json float_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  return v;
}

Json tensor_meta(DType dtype, const std::vector<sym::ExprPtr>& sizes,
                 const std::vector<sym::ExprPtr>& strides, sym::ExprPtr offset) {
  Json meta;
  meta["dtype"] = scalar_type_id(dtype);
  Json s = Json::array();
  for (sym::ExprPtr e : sizes) s.push_back(sym_int(e));
  meta["sizes"] = std::move(s);
  meta["requires_grad"] = false;
  meta["device"] = Json{{"type", "cpu"}, {"index", nullptr}};
  Json st = Json::array();
  const std::vector<sym::ExprPtr> contiguous =
      strides.size() == sizes.size() ? strides : ir::TensorSpec::contiguous(dtype, sizes).strides;
  for (sym::ExprPtr e : contiguous) st.push_back(sym_int(e));
  meta["strides"] = std::move(st);
  meta["storage_offset"] = sym_int(offset);
  meta["layout"] = kLayoutStrided;
  return meta;
}

Json tensor_meta(const ir::TensorSpec& spec) {
  return tensor_meta(spec.dtype, spec.sizes, spec.strides, spec.storage_offset);
}

Json tensor_meta(const Tensor& t) {
  std::vector<sym::ExprPtr> sizes, strides;
  for (int64_t s : t.int_sizes()) sizes.push_back(sym::integer(s));
  for (int64_t s : t.int_strides()) strides.push_back(sym::integer(s));
  return tensor_meta(t.dtype(), sizes, strides,
                     sym::integer(static_cast<int64_t>(t.storage_offset())));
}

class GraphWriter {
 public:
  explicit GraphWriter(const ir::Graph& graph) : graph_(graph) { name_values(); }

  // `inputs`: one Argument per graph input, the placeholders and the constant inputs.
  Json graph_json(Json inputs) {
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

  const std::string& value_name(const ir::ValueRef& r) const { return names_.at(key(r)); }

  // Asserts a user input's dtype in the graph (aten._assert_tensor_metadata, as torch.export's
  // training IR writes it): ep.module()'s input check compares shapes only.
  void assert_dtype(const std::string& input, DType dtype) {
    const std::string name = unique("_assert_tensor_metadata");
    Json n = sym_node("torch.ops.aten._assert_tensor_metadata.default",
                      {{"a", Json{{"as_tensor", Json{{"name", input}}}}},
                       {"size", Json{{"as_none", true}}},
                       {"stride", Json{{"as_none", true}}},
                       {"dtype", Json{{"as_scalar_type", scalar_type_id(dtype)}}},
                       {"device", Json{{"as_none", true}}},
                       {"layout", Json{{"as_none", true}}}},
                      name, nullptr);
    n["inputs"][4]["kind"] = kArgumentKeyword;  // device and layout are keyword-only
    n["inputs"][5]["kind"] = kArgumentKeyword;
    sym_nodes_.push_back(std::move(n));
  }

  // Asserts the symbol's finite bounds in the graph, as torch.export writes runtime assertions
  // (_operator.ge / le, then aten._assert_scalar): ep.module()'s input check checks a minimum
  // only above 2 (sizes 0 and 1 pass), and no bound of a symbol that only derived dims use.
  void assert_range(const SymbolSpec& s) {
    const sym::ExprPtr symbol = sym::symbol(s.name);
    if (s.range.lo != sym::Range::kNegInf) assert_bound(s, symbol, true, s.range.lo);
    if (s.range.hi != sym::Range::kPosInf) assert_bound(s, symbol, false, s.range.hi);
  }

  // `base`, `base_1`, ...: the first not yet used.
  std::string unique(const std::string& base) {
    int& count = used_[base];
    std::string name = count == 0 ? base : base + "_" + std::to_string(count);
    while (used_.count(name) && name != base) name = base + "_" + std::to_string(++count);
    ++count;
    used_[name] = 1;
    return name;
  }

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

  // A value is named by its node, except the values of a node with several (or a list of)
  // outputs, which are named like PyTorch's getitem nodes.
  void name_values() {
    for (const auto& node : graph_.nodes()) used_[node->name()] = 1;
    for (const auto& node : graph_.nodes()) {
      const bool multi = ir::detail::is_multi_output(*node);
      for (size_t i = 0; i < node->outputs().size(); ++i) {
        names_[key(node->out(static_cast<int>(i)))] = multi ? unique("getitem") : node->name();
      }
    }
  }

  Json tensor_ref(const ir::ValueRef& r) const { return Json{{"name", value_name(r)}}; }

  // PyTorch's graphs compute symbolic sizes with nodes: aten.sym_size.int reads a symbol off an
  // input dim, and _operator / torch.sym_min|max nodes do the arithmetic; arguments name the
  // node's output. xport's graph holds the expressions inline, so the writer emits such nodes
  // (recording each output's expression in sym_int_values, which the reader uses instead).
  std::string sym_name(sym::ExprPtr e) {
    if (auto it = sym_names_.find(e); it != sym_names_.end()) return it->second;
    std::string name;
    switch (e->kind()) {
      case sym::ExprKind::Symbol:
        name = sym_size_node(e);
        break;
      case sym::ExprKind::Add: {
        sym::ExprPtr acc = nullptr;
        for (size_t i = 0; i < e->args().size(); ++i) {
          const sym::ExprPtr term = sym::mul(sym::integer(e->coefficients()[i]), e->args()[i]);
          if (e->coefficients()[i] != 1) {
            sym_op("_operator.mul", "sym_mul", operand(e->args()[i]),
                   Json{{"as_int", e->coefficients()[i]}}, term);
          }
          if (acc != nullptr) {
            const sym::ExprPtr sum = sym::add(acc, term);
            sym_op("_operator.add", "sym_add", operand(acc), operand(term), sum);
            acc = sum;
          } else {
            acc = term;
          }
        }
        // A sum has at least two terms, or one term and a constant (canonical form), so the
        // last node made here produces `e`.
        name = e->value() != 0 ? sym_op("_operator.add", "sym_add", operand(acc),
                                        Json{{"as_int", e->value()}}, e)
                               : sym_names_.at(acc);
        break;
      }
      case sym::ExprKind::Mul: {
        sym::ExprPtr acc = nullptr;
        for (size_t i = 0; i < e->args().size(); ++i) {
          for (int64_t k = 0; k < e->exponents()[i]; ++k) {
            if (acc == nullptr) {
              acc = e->args()[i];
              continue;
            }
            const sym::ExprPtr product = sym::mul(acc, e->args()[i]);
            sym_op("_operator.mul", "sym_mul", operand(acc), operand(e->args()[i]), product);
            acc = product;
          }
        }
        name = sym_names_.at(acc);  // a product has at least two factors
        break;
      }
      case sym::ExprKind::FloorDiv:
      case sym::ExprKind::Mod: {
        const bool div = e->kind() == sym::ExprKind::FloorDiv;
        name =
            sym_op(div ? "_operator.floordiv" : "_operator.mod", div ? "sym_floordiv" : "sym_mod",
                   operand(e->args()[0]), operand(e->args()[1]), e);
        break;
      }
      case sym::ExprKind::Min:
      case sym::ExprKind::Max: {
        const bool is_min = e->kind() == sym::ExprKind::Min;
        sym::ExprPtr acc = e->args()[0];
        for (size_t i = 1; i < e->args().size(); ++i) {
          const sym::ExprPtr next =
              is_min ? sym::min(acc, e->args()[i]) : sym::max(acc, e->args()[i]);
          sym_op(is_min ? "torch.sym_min" : "torch.sym_max", is_min ? "sym_min" : "sym_max",
                 operand(acc), operand(e->args()[i]), next);
          acc = next;
        }
        name = sym_names_.at(acc);
        break;
      }
      default:
        XPORT_FAIL(Internal, "save: the argument ", sym::str(e), " is not an integer expression");
    }
    sym_names_[e] = name;
    return name;
  }

  void assert_bound(const SymbolSpec& s, sym::ExprPtr symbol, bool lower, int64_t bound) {
    const Json a = operand(symbol);
    const std::string cond = unique(lower ? "sym_ge" : "sym_le");
    sym_nodes_.push_back(sym_node(lower ? "_operator.ge" : "_operator.le",
                                  {{"a", a}, {"b", Json{{"as_int", bound}}}}, cond,
                                  "as_sym_bool"));
    sym_bool_values_[cond] =
        Json{{"as_expr", Json{{"expr_str", std::string(lower ? "GreaterThan(" : "LessThan(") +
                                               srepr(symbol) + ", " +
                                               srepr(sym::integer(bound)) + ")"},
                              {"hint", nullptr}}}};
    // "(s0 is x.size(0), Dim 'batch')"; a symbol only derived dims use has its Dim as source.
    std::string what = s.source == s.dim_name ? "" : s.source;
    if (!s.dim_name.empty()) what += (what.empty() ? "Dim '" : ", Dim '") + s.dim_name + "'";
    const std::string message = "Runtime assertion failed for expression " + s.name +
                                (lower ? " >= " : " <= ") + std::to_string(bound) + " (" +
                                s.name + " is " + what + ")";
    sym_nodes_.push_back(sym_node(
        "torch.ops.aten._assert_scalar.default",
        {{"self", Json{{"as_sym_bool", Json{{"as_name", cond}}}}},
         {"assert_msg", Json{{"as_string", message}}}},
        unique("_assert_scalar"), nullptr));
  }

  // aten.item's output is the unbacked symbol itself (as_sym_int).
  static bool binds_value(const ir::Node& node) {
    const auto& b = node.unbacked_bindings();
    return b.size() == 1 && b[0].dim < 0;
  }

  // A float the graph computes (item_float()'s value, `_operator.mul`'s result): PyTorch's
  // SymFloat, written as_sym_float.
  static bool is_float_number(const ir::Node& node) {
    if (node.kind() != ir::NodeKind::Call) return false;
    const Schema& s = node.op()->parsed;
    return s.returns.size() == 1 && s.returns[0].type.base == BaseType::Scalar &&
           node.outputs().size() == 1 && is_floating(node.outputs()[0].dtype) &&
           !binds_value(node);
  }

  // The nodes that name the symbols `node` binds: item's own output, or aten.sym_size.int of
  // the output dim (nonzero's row count), recorded in sym_int_values.
  void name_bound_symbols(const ir::Node& node) {
    for (const ir::UnbackedBinding& b : node.unbacked_bindings()) {
      if (b.dim < 0) {
        sym_values_[node.name()] = sym_int(b.symbol);
        sym_names_[b.symbol] = node.name();
        continue;
      }
      const std::string name = unique("sym_size_int");
      sym_nodes_.push_back(sym_node(
          "torch.ops.aten.sym_size.int",
          {{"self", Json{{"as_tensor", tensor_ref(node.out(b.output))}}},
           {"dim", Json{{"as_int", b.dim}}}},
          name));
      sym_values_[name] = sym_int(b.symbol);
      sym_names_[b.symbol] = name;
    }
  }

  static Json sym_arg(const std::string& name) {
    return Json{{"as_sym_int", Json{{"as_name", name}}}};
  }

  Json operand(sym::ExprPtr e) {
    if (auto v = sym::as_int(e)) return Json{{"as_int", *v}};
    if (e->is_bool()) return sym_bool_operand(e);
    return sym_arg(sym_name(e));
  }

  // A SymBool argument (cond's predicate `s0 > 4`): a comparison node, as PyTorch's graphs
  // compute one (`_operator.gt(sym_size_int, 4)`), with its expression in sym_bool_values.
  Json sym_bool_operand(sym::ExprPtr e) {
    if (auto v = sym::as_bool(e)) return Json{{"as_bool", *v}};
    if (auto it = sym_names_.find(e); it != sym_names_.end()) {
      return Json{{"as_sym_bool", Json{{"as_name", it->second}}}};
    }
    XPORT_CHECK(e->kind() == sym::ExprKind::Le || e->kind() == sym::ExprKind::Eq ||
                    e->kind() == sym::ExprKind::Ne,
                UnsupportedOp, "save: the condition ", sym::str(e),
                " combines comparisons (and / or / not); xport writes single comparisons only");
    const sym::ExprPtr lhs = e->args()[0];  // `lhs <= 0`, `lhs == 0` or `lhs != 0`
    // `a*s + b <= 0` for one symbol reads better as a bound on s (`s >= 5`, `s <= 7`).
    sym::ExprPtr left = lhs, right = sym::integer(0);
    const char* target = e->kind() == sym::ExprKind::Eq   ? "_operator.eq"
                         : e->kind() == sym::ExprKind::Ne ? "_operator.ne"
                                                          : "_operator.le";
    const char* relation = e->kind() == sym::ExprKind::Eq   ? "Eq"
                           : e->kind() == sym::ExprKind::Ne ? "Ne"
                                                            : "LessThan";
    if (const auto f = sym::as_affine(lhs); f && e->kind() == sym::ExprKind::Le && f->a != 0) {
      left = f->symbol;
      if (f->a > 0) {
        right = sym::integer(floor_div(-f->b, f->a));  // s <= -b / a, rounded down
      } else {
        right = sym::integer(-floor_div(-f->b, -f->a));  // s >= b / -a, rounded up
        target = "_operator.ge";
        relation = "GreaterThan";
      }
    }
    const std::string name = unique("sym_cond");
    sym_nodes_.push_back(sym_node(target, {{"a", operand(left)}, {"b", operand(right)}}, name,
                                  "as_sym_bool"));
    sym_bool_values_[name] = Json{
        {"as_expr", Json{{"expr_str", std::string(relation) + "(" + srepr(left) + ", " +
                                          srepr(right) + ")"},
                         {"hint", nullptr}}}};
    sym_names_[e] = name;
    return Json{{"as_sym_bool", Json{{"as_name", name}}}};
  }

  // A higher-order op's subgraph, written as its own graph (names are its own). A predicate
  // (while_loop's cond_fn) returns its one tensor itself, not a tuple of it.
  static Json subgraph(const ir::SubgraphRef& g, bool single_tensor_return) {
    GraphWriter writer(*g.graph);
    Json inputs = Json::array();
    for (const ir::Node* p : g.graph->placeholders()) {
      inputs.push_back(Json{{"as_tensor", Json{{"name", p->name()}}}});
    }
    Json graph = writer.graph_json(inputs);
    graph["is_single_tensor_return"] = single_tensor_return;
    return Json{{"as_graph", Json{{"name", g.name}, {"graph", std::move(graph)}}}};
  }

  // A node `target(a, b)` producing `result`; returns its name (and remembers it for `result`).
  std::string sym_op(const char* target, const char* base, Json a, Json b, sym::ExprPtr result) {
    if (auto it = sym_names_.find(result); it != sym_names_.end()) return it->second;
    const std::string name = unique(base);
    sym_nodes_.push_back(sym_node(target, {{"a", std::move(a)}, {"b", std::move(b)}}, name));
    sym_values_[name] = sym_int(result);
    sym_names_[result] = name;
    return name;
  }

  // aten.sym_size.int(input, dim) for the first input dim that is exactly `symbol`; failing
  // that, for the first dim a*symbol + b (a derived dim such as 2*s0), followed by a sub and a
  // floordiv that solve it for the symbol. A symbol in no such dim (only in products, say) has
  // no node: its name is only a key of sym_int_values, which the xport reader resolves but
  // PyTorch's does not.
  std::string sym_size_node(sym::ExprPtr symbol) {
    for (bool exact : {true, false}) {
      for (const ir::Node* p : graph_.placeholders()) {
        const auto& sizes = p->outputs()[0].sizes;
        for (size_t d = 0; d < sizes.size(); ++d) {
          const auto affine = sym::as_affine(sizes[d]);
          if (exact ? sizes[d] != symbol : !affine || affine->symbol != symbol) continue;
          std::string size = dim_size_node(p, d);
          if (exact) return size;
          // size = a*symbol + b, so symbol = (size - b) // a.
          if (affine->b != 0) {
            size = sym_op("_operator.sub", "sym_sub", sym_arg(size), Json{{"as_int", affine->b}},
                          sym::mul(sym::integer(affine->a), symbol));
          }
          return sym_op("_operator.floordiv", "sym_floordiv", sym_arg(size),
                        Json{{"as_int", affine->a}}, symbol);
        }
      }
    }
    const std::string name = sym::str(symbol);
    sym_values_[name] = sym_int(symbol);
    return name;
  }

  // aten.sym_size.int(p, d), named as the value of that dim's expression.
  std::string dim_size_node(const ir::Node* p, size_t d) {
    const sym::ExprPtr size = p->outputs()[0].sizes[d];
    if (auto it = sym_names_.find(size); it != sym_names_.end()) return it->second;
    const std::string name = unique("sym_size_int");
    sym_nodes_.push_back(sym_node("torch.ops.aten.sym_size.int",
                                  {{"self", Json{{"as_tensor", Json{{"name", p->name()}}}}},
                                   {"dim", Json{{"as_int", static_cast<int64_t>(d)}}}},
                                  name));
    sym_values_[name] = sym_int(size);
    sym_names_[size] = name;
    return name;
  }

  // A node whose output is the SymInt (or, with `kind` as_sym_bool, the SymBool) `name`, or
  // nothing when `kind` is null.
  static Json sym_node(const char* target, std::vector<std::pair<const char*, Json>> inputs,
                       const std::string& name, const char* kind = "as_sym_int") {
    Json in = Json::array();
    for (auto& [arg_name, arg] : inputs) {
      in.push_back(
          Json{{"name", arg_name}, {"arg", std::move(arg)}, {"kind", kArgumentPositional}});
    }
    Json n;
    n["target"] = target;
    n["inputs"] = std::move(in);
    n["outputs"] = kind ? Json::array({Json{{kind, Json{{"as_name", name}}}}}) : Json::array();
    n["metadata"] = Json::object();
    n["is_hop_single_tensor_return"] = nullptr;
    n["name"] = name;
    return n;
  }

  // One argument, by the kind of value it holds; `param` (null for graph outputs) settles
  // the empty list's kind and float-typed scalars.
  Json argument(const ir::Argument& a, const xport::Argument* param) {
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

  Json list(const std::vector<ir::Argument>& list, const xport::Argument* param) {
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

  Json node_json(const ir::Node& node) {
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

  static Json node_metadata(const ir::NodeMeta& meta) {
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
  static std::string stack_trace_of_source(const std::string& source) {
    const size_t colon = source.rfind(':');
    if (colon == std::string::npos || colon + 1 == source.size() ||
        source.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
      return "File \"" + source + "\"";
    }
    return "File \"" + source.substr(0, colon) + "\", line " + source.substr(colon + 1);
  }
};

Json contract_json(const InputContract& c) {
  Json j;
  j["kind"] = to_string(c.kind);
  j["name"] = c.name;
  switch (c.kind) {
    case InputContract::Kind::Tensor: {
      j["dtype"] = scalar_type_id(c.dtype);
      Json sizes = Json::array();
      for (sym::ExprPtr e : c.sizes) sizes.push_back(sym_int(e));
      j["sizes"] = std::move(sizes);
      break;
    }
    case InputContract::Kind::TensorList: {
      Json elements = Json::array();
      for (const InputContract& e : c.elements) elements.push_back(contract_json(e));
      j["elements"] = std::move(elements);
      break;
    }
    case InputContract::Kind::Int:
    case InputContract::Kind::Bool:
      j["value"] = c.int_value;
      break;
    case InputContract::Kind::Float:
      j["value"] = float_value(c.float_value);
      break;
  }
  return j;
}

// A specialised plain input as a graph input and ConstantValue (the two unions share these).
Json constant_value(const InputContract& c) {
  switch (c.kind) {
    case InputContract::Kind::Int:
      return Json{{"as_int", c.int_value}};
    case InputContract::Kind::Bool:
      return Json{{"as_bool", c.int_value != 0}};
    case InputContract::Kind::Float:
      return Json{{"as_float", float_value(c.float_value)}};
    default:
      XPORT_FAIL(Internal, "save: input ", c.name, " is not a plain value");
  }
}

// torch.utils._pytree's TreeSpec as treespec_dumps writes it: a leaf, or a container type with
// its context (JSON text: "null" for tuples and lists, the list of keys for dicts) and children.
Json leaf_spec() {
  return Json{{"type", nullptr}, {"context", nullptr}, {"children_spec", Json::array()}};
}

Json container_spec(const char* type, const char* context, Json children) {
  return Json{{"type", type}, {"context", context}, {"children_spec", std::move(children)}};
}

// The user inputs in call order, as ep.module() takes them: the contract's inputs as positional
// arguments, a tensor list as a list. A plain value the program was specialised to is a graph
// input too (a constant_input, as torch.export writes it), so that ep.module() takes the
// arguments xport's run() takes; it goes before the next user tensor input.
struct CallInputs {
  Json args_spec = Json::array();  // a TreeSpec per input
  Json names = Json::array();
  std::vector<DType> dtypes;                                            // of each user tensor
  std::vector<std::vector<const InputContract*>> constants_before{1};  // [i]: before tensor i

  explicit CallInputs(const std::vector<InputContract>& contract) {
    for (const InputContract& c : contract) {
      names.push_back(c.name);
      if (c.kind == InputContract::Kind::Tensor) {
        args_spec.push_back(leaf_spec());
        dtypes.push_back(c.dtype);
        constants_before.emplace_back();
      } else if (c.kind == InputContract::Kind::TensorList) {
        Json elements = Json::array();
        for (const InputContract& e : c.elements) {
          elements.push_back(leaf_spec());
          dtypes.push_back(e.dtype);
          constants_before.emplace_back();
        }
        args_spec.push_back(container_spec("builtins.list", "null", std::move(elements)));
      } else {
        args_spec.push_back(leaf_spec());
        constants_before.back().push_back(&c);
      }
    }
  }

  // The root module's ModuleCallSignature. run() returns a flat list of tensors, so the
  // out_spec is a tuple, for one output too.
  Json signature(size_t outputs) const {
    const Json in_spec = container_spec(
        "builtins.tuple", "null",
        Json::array({container_spec("builtins.tuple", "null", args_spec),
                     container_spec("builtins.dict", "[]", Json::array())}));
    Json out_spec = container_spec("builtins.tuple", "null", Json::array());
    for (size_t i = 0; i < outputs; ++i) out_spec["children_spec"].push_back(leaf_spec());
    Json sig;
    sig["inputs"] = Json::array();
    sig["outputs"] = Json::array();
    sig["in_spec"] = Json::array({kTreeSpecProtocol, in_spec}).dump();
    sig["out_spec"] = Json::array({kTreeSpecProtocol, out_spec}).dump();
    sig["forward_arg_names"] = names;
    return sig;
  }
};

Json bound(int64_t v, int64_t infinity) { return v == infinity ? Json(nullptr) : Json(v); }

// Payloads: each distinct storage once, in signature order, tensors as views of it.
class PayloadWriter {
 public:
  PayloadWriter(const char* dir, const char* prefix) : dir_(dir), prefix_(prefix) {}
  Json config = Json{{"config", Json::object()}};
  std::vector<Payload> payloads;

  void add(const std::string& fqn, const Tensor& t, bool is_param) {
    auto [it, inserted] = names_.emplace(t.storage().get(), "");
    if (inserted) {
      it->second = prefix_ + std::to_string(names_.size() - 1);
      payloads.push_back({dir_ + it->second, t.storage()});
    }
    config["config"][fqn] = Json{{"path_name", it->second},
                                 {"is_param", is_param},
                                 {"use_pickle", false},
                                 {"tensor_meta", tensor_meta(t)}};
  }

 private:
  std::string dir_, prefix_;
  std::map<const Storage*, std::string> names_;
};

}  // namespace

SerializedProgram serialize(const ExportedProgram& program) {
  GraphWriter writer(program.graph());
  const GraphSignature& sig = program.signature();
  const CallInputs call(program.contract());
  Json graph_inputs = Json::array();
  Json input_specs = Json::array();
  auto add_constants = [&](size_t i) {
    for (const InputContract* c : call.constants_before[i]) {
      const Json value = constant_value(*c);
      graph_inputs.push_back(value);
      input_specs.push_back(
          Json{{"constant_input", Json{{"name", writer.unique(c->name)}, {"value", value}}}});
    }
  };

  PayloadWriter weights(kWeightsDir, kWeightPrefix);
  PayloadWriter constants(kConstantsDir, kConstantPrefix);
  size_t tensors = 0;  // user tensor inputs so far
  for (const InputSpec& in : sig.inputs) {
    const Json arg = Json{{"name", in.name}};
    switch (in.kind) {
      case InputSpec::Kind::Parameter:
        input_specs.push_back(
            Json{{"parameter", Json{{"arg", arg}, {"parameter_name", in.target}}}});
        weights.add(in.target, program.state().at(in.target), true);
        break;
      case InputSpec::Kind::Buffer:
        input_specs.push_back(
            Json{{"buffer",
                  Json{{"arg", arg}, {"buffer_name", in.target}, {"persistent", in.persistent}}}});
        (in.persistent ? weights : constants).add(in.target, program.state().at(in.target), false);
        break;
      case InputSpec::Kind::Constant:
        input_specs.push_back(
            Json{{"tensor_constant", Json{{"arg", arg}, {"tensor_constant_name", in.target}}}});
        constants.add(in.target, program.state().at(in.target), false);
        break;
      case InputSpec::Kind::UserInput:
        XPORT_CHECK(tensors + 1 < call.constants_before.size(), Internal, "save: the graph has ",
                    "more user inputs than the contract's ", call.constants_before.size() - 1,
                    " tensors");
        add_constants(tensors);
        writer.assert_dtype(in.name, call.dtypes[tensors++]);
        input_specs.push_back(Json{{"user_input", Json{{"arg", Json{{"as_tensor", arg}}}}}});
        break;
    }
    graph_inputs.push_back(Json{{"as_tensor", arg}});
  }
  XPORT_CHECK(tensors + 1 == call.constants_before.size(), Internal, "save: the contract ",
              "describes ", call.constants_before.size() - 1, " tensor inputs, the graph has ",
              tensors);
  add_constants(tensors);

  for (const SymbolSpec& s : program.symbols()) {
    if (!s.unbacked) writer.assert_range(s);  // the graph asserts an unbacked symbol's facts
  }
  Json graph = writer.graph_json(std::move(graph_inputs));
  Json output_specs = Json::array();
  size_t user_outputs = 0;
  const std::vector<OutputSpec>& outputs = program.signature().outputs;
  XPORT_CHECK(outputs.size() == graph["outputs"].size(), Internal, "save: ", outputs.size(),
              " output specs for ", graph["outputs"].size(), " graph outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Json& out = graph["outputs"][i];
    switch (outputs[i].kind) {
      case OutputSpec::Kind::UserOutput:
        output_specs.push_back(Json{{"user_output", Json{{"arg", out}}}});
        ++user_outputs;
        break;
      case OutputSpec::Kind::BufferMutation:
        output_specs.push_back(Json{{"buffer_mutation", Json{{"arg", out.at("as_tensor")},
                                                             {"buffer_name", outputs[i].target}}}});
        break;
      case OutputSpec::Kind::UserInputMutation:
        output_specs.push_back(
            Json{{"user_input_mutation",
                  Json{{"arg", out.at("as_tensor")}, {"user_input_name", outputs[i].target}}}});
        break;
    }
  }
  Json call_signature = call.signature(user_outputs);

  Json contract = Json::array();
  for (const InputContract& c : program.contract()) contract.push_back(contract_json(c));
  Json symbols = Json::array();
  Json ranges = Json::object();
  for (const SymbolSpec& s : program.symbols()) {
    symbols.push_back(Json{{"name", s.name},
                           {"source", s.source},
                           {"dim_name", s.dim_name},
                           {"unbacked", s.unbacked}});
    ranges[s.name] = Json{{"min_val", bound(s.range.lo, sym::Range::kNegInf)},
                          {"max_val", bound(s.range.hi, sym::Range::kPosInf)}};
  }

  Json module;
  module["graph"] = std::move(graph);
  module["signature"] =
      Json{{"input_specs", std::move(input_specs)}, {"output_specs", std::move(output_specs)}};
  module["module_call_graph"] =
      Json::array({Json{{"fqn", ""}, {"signature", std::move(call_signature)}}});
  module["metadata"] = Json{{kContractKey, contract.dump()}, {kSymbolsKey, symbols.dump()}};
  module["treespec_namedtuple_fields"] = Json::object();

  Json ep;
  ep["graph_module"] = std::move(module);
  ep["opset_version"] = Json{{"aten", 10}};
  ep["range_constraints"] = std::move(ranges);
  ep["schema_version"] = Json{{"major", kSchemaMajor}, {"minor", kSchemaMinor}};
  ep["verifiers"] = Json::array();
  ep["torch_version"] = "xport 0.1";
  ep["guards_code"] = Json::array();

  SerializedProgram out;
  out.model_json = ep.dump();
  out.weights_config_json = weights.config.dump();
  out.constants_config_json = constants.config.dump();
  out.payloads = std::move(weights.payloads);
  for (Payload& p : constants.payloads) out.payloads.push_back(std::move(p));
  return out;
}

}  // namespace xport::serde
