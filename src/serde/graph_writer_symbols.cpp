// Symbolic sizes and conditions as the nodes PyTorch's graphs compute them with (aten.sym_size.int,
// _operator arithmetic and comparisons), and the input assertions torch.export writes.

#include "ir/ir_util.h"
#include "serde/graph_writer.h"
#include "serde/pt2_format.h"
#include "serde/write_values.h"
#include "xport/core/error.h"

namespace xport::serde {

using Json = GraphWriter::Json;

// PyTorch's graphs compute symbolic sizes with nodes: aten.sym_size.int reads a symbol off an
// input dim, and _operator / torch.sym_min|max nodes do the arithmetic; arguments name the
// node's output. xport's graph holds the expressions inline, so the writer emits such nodes
// (recording each output's expression in sym_int_values, which the reader uses instead).
std::string GraphWriter::sym_name(sym::ExprPtr e) {
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

// A node `target(a, b)` producing `result`; returns its name (and remembers it for `result`).
std::string GraphWriter::sym_op(const char* target, const char* base, Json a, Json b, sym::ExprPtr result) {
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
std::string GraphWriter::sym_size_node(sym::ExprPtr symbol) {
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
std::string GraphWriter::dim_size_node(const ir::Node* p, size_t d) {
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
Json GraphWriter::sym_node(const char* target, std::vector<std::pair<const char*, Json>> inputs,
                     const std::string& name, const char* kind) {
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

Json GraphWriter::sym_arg(const std::string& name) {
  return Json{{"as_sym_int", Json{{"as_name", name}}}};
}

Json GraphWriter::operand(sym::ExprPtr e) {
  if (auto v = sym::as_int(e)) return Json{{"as_int", *v}};
  if (e->is_bool()) return sym_bool_operand(e);
  return sym_arg(sym_name(e));
}

// A SymBool argument (cond's predicate `s0 > 4`): a comparison node, as PyTorch's graphs
// compute one (`_operator.gt(sym_size_int, 4)`), with its expression in sym_bool_values.
Json GraphWriter::sym_bool_operand(sym::ExprPtr e) {
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

// aten.item's output is the unbacked symbol itself (as_sym_int).
bool GraphWriter::binds_value(const ir::Node& node) {
  const auto& b = node.unbacked_bindings();
  return b.size() == 1 && b[0].dim < 0;
}

// A float the graph computes (item_float()'s value, `_operator.mul`'s result): PyTorch's
// SymFloat, written as_sym_float.
bool GraphWriter::is_float_number(const ir::Node& node) {
  if (node.kind() != ir::NodeKind::Call) return false;
  const Schema& s = node.op()->parsed;
  return s.returns.size() == 1 && s.returns[0].type.base == BaseType::Scalar &&
         node.outputs().size() == 1 && is_floating(node.outputs()[0].dtype) &&
         !binds_value(node);
}

// The nodes that name the symbols `node` binds: item's own output, or aten.sym_size.int of
// the output dim (nonzero's row count), recorded in sym_int_values.
void GraphWriter::name_bound_symbols(const ir::Node& node) {
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

// Asserts a user input's dtype in the graph (aten._assert_tensor_metadata, as torch.export's
// training IR writes it): ep.module()'s input check compares shapes only.
void GraphWriter::assert_dtype(const std::string& input, DType dtype) {
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
void GraphWriter::assert_range(const SymbolSpec& s) {
  const sym::ExprPtr symbol = sym::symbol(s.name);
  if (s.range.lo != sym::Range::kNegInf) assert_bound(s, symbol, true, s.range.lo);
  if (s.range.hi != sym::Range::kPosInf) assert_bound(s, symbol, false, s.range.hi);
}

void GraphWriter::assert_bound(const SymbolSpec& s, sym::ExprPtr symbol, bool lower, int64_t bound) {
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

}  // namespace xport::serde
