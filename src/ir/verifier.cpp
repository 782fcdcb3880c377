// The verifier: structural invariants, then each call's arguments and outputs against its
// op's schema.

#include <unordered_map>

#include "ir/ir_util.h"
#include "xport/core/error.h"
#include "xport/ir/ir.h"

namespace xport::ir {
namespace {

bool is_integer_expr(const Argument& a) {
  const auto* e = std::get_if<sym::ExprPtr>(&a.value);
  return e && *e && !(*e)->is_bool();
}

// What an argument holds, for messages: `an int (2*s0)`, `a Tensor (%x)`.
std::string describe(const Argument& a) {
  switch (a.value.index()) {
    case 0:
      return "None";
    case 1:
      return "a Tensor (" + a.str() + ")";
    case 2: {
      const auto e = std::get<sym::ExprPtr>(a.value);
      if (!e) return "a null expression";
      return std::string(e->is_bool() ? "a bool expression (" : "an int (") + a.str() + ")";
    }
    case 3:
      return "a float (" + a.str() + ")";
    case 4:
      return "a bool (" + a.str() + ")";
    case 5:
      return "a str (" + a.str() + ")";
    case 6:
      return "a ScalarType (" + a.str() + ")";
    case 7:
      return "a list (" + a.str() + ")";
    default:
      return "a subgraph (" + a.str() + ")";
  }
}

// A number the graph computes (item_float()'s value): a one-element, 0-dim value.
bool is_number_value(const Argument& a) {
  const auto* ref = std::get_if<ValueRef>(&a.value);
  if (ref == nullptr || ref->node == nullptr) return false;
  const auto& outputs = ref->node->outputs();
  return ref->index >= 0 && static_cast<size_t>(ref->index) < outputs.size() &&
         outputs[static_cast<size_t>(ref->index)].sizes.empty();
}

// Whether one (non-list) value fits `base`; `element_optional` allows None.
bool fits_base(BaseType base, const Argument& a) {
  switch (base) {
    case BaseType::Tensor:
      return std::holds_alternative<ValueRef>(a.value);
    case BaseType::Int:
    case BaseType::SymInt:
      return is_integer_expr(a);
    case BaseType::Float:
      return std::holds_alternative<double>(a.value) || is_integer_expr(a) ||
             is_number_value(a);
    case BaseType::Bool:
      return std::holds_alternative<bool>(a.value);
    case BaseType::Scalar:  // a bool expression too (_assert_scalar's condition)
      return std::holds_alternative<sym::ExprPtr>(a.value) ||
             std::holds_alternative<double>(a.value) || std::holds_alternative<bool>(a.value) ||
             is_number_value(a);
    case BaseType::ScalarType:
      return std::holds_alternative<DType>(a.value);
    case BaseType::Str:
    case BaseType::Layout:
    case BaseType::Device:
    case BaseType::MemoryFormat:
      return std::holds_alternative<std::string>(a.value);
    case BaseType::Generator:
      return false;
    case BaseType::Graph:
      return std::holds_alternative<SubgraphRef>(a.value);
    case BaseType::Any:
      return !std::holds_alternative<SubgraphRef>(a.value);
  }
  return false;
}

// Empty when `a` fits `type` (as bind_args would accept it), else what is wrong.
std::string kind_error(const ArgType& type, const Argument& a) {
  const std::string expected = "must be " + type.str() + ", got " + describe(a);
  if (a.is_none()) {
    const bool none_ok = type.optional || type.base == BaseType::Layout ||
                         type.base == BaseType::Device || type.base == BaseType::MemoryFormat ||
                         type.base == BaseType::Generator;
    return none_ok ? "" : expected;
  }
  if (!type.list) return fits_base(type.base, a) ? "" : expected;
  const bool int_list = type.base == BaseType::Int || type.base == BaseType::SymInt;
  if (type.base != BaseType::Tensor && !int_list && type.base != BaseType::Float &&
      type.base != BaseType::Bool) {
    return "has type " + type.str() + ", which graphs do not support";
  }
  // `int[1] dim` also takes one int (ATen's convention, as bind_args does).
  if (int_list && is_integer_expr(a)) return "";
  const auto* list = std::get_if<std::vector<Argument>>(&a.value);
  if (!list) return expected;
  for (size_t i = 0; i < list->size(); ++i) {
    const Argument& e = (*list)[i];
    if (e.is_none() ? !type.element_optional : !fits_base(type.base, e)) {
      return "must be " + type.str() + ", but element " + std::to_string(i) + " is " + describe(e);
    }
  }
  return "";
}

const TensorSpec& spec_of(const ValueRef& ref) {
  return ref.node->outputs()[static_cast<size_t>(ref.index)];
}

bool same_sizes(const std::vector<sym::ExprPtr>& a, size_t a_from,
                const std::vector<sym::ExprPtr>& b, size_t b_from) {
  if (a.size() - a_from != b.size() - b_from) return false;
  for (size_t i = 0; i + a_from < a.size(); ++i) {
    if (a[a_from + i] != b[b_from + i]) return false;
  }
  return true;
}

std::string dropped_leading(const TensorSpec& spec) {
  TensorSpec s = spec;
  if (!s.sizes.empty()) s.sizes.erase(s.sizes.begin());
  return s.str();
}

// A higher-order op's subgraph verifies, takes what the node passes in (OpDef::subgraph_uses)
// and returns what the node's outputs say.
void verify_subgraph(const Node& node, const SubgraphUse& use, const std::string& where) {
  const auto& ref = std::get<SubgraphRef>(node.args()[static_cast<size_t>(use.graph_arg)].value);
  const std::string sub_where = where + "subgraph " + ref.name + ": ";
  XPORT_CHECK(ref.graph != nullptr, Internal, sub_where, "is null");
  const Graph& sub = *ref.graph;
  try {
    sub.verify();
  } catch (const Error& e) {
    XPORT_FAIL(Internal, sub_where, e.what());
  }
  std::vector<std::pair<const TensorSpec*, bool>> inputs;  // (spec, sliced)
  for (size_t k = 0; k < use.inputs.size(); ++k) {
    detail::for_each_ref(node.args()[static_cast<size_t>(use.inputs[k])], [&](const ValueRef& r) {
      inputs.emplace_back(&spec_of(r), k == 0 && use.sliced_first);
    });
  }
  const std::vector<const Node*> placeholders = sub.placeholders();
  XPORT_CHECK(placeholders.size() == inputs.size(), Internal, sub_where, "takes ",
              placeholders.size(), " inputs, the node passes ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec& want = *inputs[i].first;
    const TensorSpec& got = placeholders[i]->outputs()[0];
    XPORT_CHECK(got.dtype == want.dtype && same_sizes(got.sizes, 0, want.sizes, inputs[i].second),
                Internal, sub_where, "input ", i, " (%", placeholders[i]->name(), ") is ",
                got.str(), ", the node passes ",
                inputs[i].second ? dropped_leading(want) + " (a slice)" : want.str());
  }
  std::vector<const TensorSpec*> results;
  for (size_t r = 0; r < sub.output()->args().size(); ++r) {
    const auto* result = std::get_if<ValueRef>(&sub.output()->args()[r].value);
    XPORT_CHECK(result != nullptr, Internal, sub_where, "result ", r, " is not a tensor");
    results.push_back(&spec_of(*result));
  }
  if (use.returns == SubgraphUse::Returns::Predicate) {
    bool one = results.size() == 1 && results[0]->dtype == DType::Bool;
    for (size_t d = 0; one && d < results[0]->sizes.size(); ++d) {
      one = sym::as_int(results[0]->sizes[d]) == std::optional<int64_t>(1);
    }
    XPORT_CHECK(one, Internal, sub_where,
                "must return one bool tensor with one element (a predicate)");
    return;
  }
  XPORT_CHECK(results.size() == node.outputs().size(), Internal, sub_where, "returns ",
              results.size(), " tensors, the node has ", node.outputs().size(), " outputs");
  const bool sliced = use.returns == SubgraphUse::Returns::SlicedOutputs;
  for (size_t r = 0; r < results.size(); ++r) {
    TensorSpec out = node.outputs()[r];
    // A size the node binds to an unbacked symbol is whatever the subgraph gives (cond's
    // branches may differ there).
    for (const UnbackedBinding& b : node.unbacked_bindings()) {
      const auto d = static_cast<size_t>(b.dim);
      if (!sliced && b.output == static_cast<int>(r) && b.dim >= 0 && d < out.sizes.size() &&
          d < results[r]->sizes.size()) {
        out.sizes[d] = results[r]->sizes[d];
      }
    }
    XPORT_CHECK(results[r]->dtype == out.dtype &&
                    same_sizes(results[r]->sizes, 0, out.sizes, sliced),
                Internal, sub_where, "result ", r, " is ", results[r]->str(),
                ", the node's output ", r, " is ", out.str(), sliced ? " (stacked)" : "");
  }
}

// References of node i: nodes of this graph, earlier, with a value index in range; its output
// sizes integer expressions.
void verify_references(const Node& node, size_t i,
                       const std::unordered_map<const Node*, size_t>& index_of,
                       const std::string& where) {
  for (size_t a = 0; a < node.args().size(); ++a) {
    detail::for_each_ref(node.args()[a], [&](const ValueRef& r) {
      const auto found = index_of.find(r.node);
      XPORT_CHECK(found != index_of.end(), Internal, where, "argument ", a,
                  " refers to a node that is not in this graph");
      const Node& used = *r.node;
      XPORT_CHECK(found->second < i, Internal, where, "argument ", a, " refers to %", used.name(),
                  ", which comes later (node ", found->second, ")");
      XPORT_CHECK(r.index >= 0 && static_cast<size_t>(r.index) < used.outputs().size(), Internal,
                  where, "argument ", a, " refers to value ", r.index, " of %", used.name(),
                  ", which has ", used.outputs().size(), " values");
    });
  }
  for (size_t o = 0; o < node.outputs().size(); ++o) {
    for (sym::ExprPtr s : node.outputs()[o].sizes) {
      XPORT_CHECK(s != nullptr && !s->is_bool(), Internal, where, "output ", o,
                  " has a size that is not an integer expression");
    }
  }
}

// A call: every schema argument of the right kind, as many outputs as the schema returns, its
// subgraphs, and each unbacked symbol it binds at a one-element output or a dim of that size.
void verify_call(const Node& node, const std::string& where) {
  XPORT_CHECK(node.op() != nullptr, Internal, where, "a call node has no op");
  const Schema& schema = node.op()->parsed;
  XPORT_CHECK(node.args().size() == schema.arguments.size(), Internal, where, "has ",
              node.args().size(), " arguments, its schema has ", schema.arguments.size(),
              " (a call lists every argument, defaults included)\n  schema: ", node.op()->schema);
  for (size_t a = 0; a < node.args().size(); ++a) {
    const std::string error = kind_error(schema.arguments[a].type, node.args()[a]);
    XPORT_CHECK(error.empty(), Internal, where, "argument ", a, " (", schema.arguments[a].name,
                ") ", error, "\n  schema: ", node.op()->schema);
  }
  XPORT_CHECK(schema.returns_list || node.outputs().size() == schema.returns.size(), Internal,
              where, "has ", node.outputs().size(), " output specs, its schema ", "returns ",
              schema.returns.size(), "\n  schema: ", node.op()->schema);
  for (const SubgraphUse& use : node.op()->subgraph_uses) verify_subgraph(node, use, where);
  for (const UnbackedBinding& b : node.unbacked_bindings()) {
    bool fits = b.symbol != nullptr && b.symbol->kind() == sym::ExprKind::Symbol &&
                b.output >= 0 && static_cast<size_t>(b.output) < node.outputs().size();
    if (fits) {
      const std::vector<sym::ExprPtr>& sizes =
          node.outputs()[static_cast<size_t>(b.output)].sizes;
      fits = b.dim < 0 ? sizes.empty()
                       : static_cast<size_t>(b.dim) < sizes.size() &&
                             sizes[static_cast<size_t>(b.dim)] == b.symbol;
    }
    XPORT_CHECK(fits, Internal, where, "binds ", b.symbol ? sym::str(b.symbol) : "null",
                " to output ", b.output, b.dim < 0 ? "'s value" : " dim " + std::to_string(b.dim),
                ", which is not a one-element output or a dim of that size");
  }
}

}  // namespace

void Graph::verify() const {
  std::unordered_map<const Node*, size_t> index_of;
  std::unordered_map<std::string, const Node*> by_name;
  for (size_t i = 0; i < nodes_.size(); ++i) index_of[nodes_[i].get()] = i;

  bool seen_call = false;
  const Node* output = nullptr;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& node = *nodes_[i];
    const std::string where = "verify: node " + detail::node_label(node) + ": ";
    XPORT_CHECK(node.position() == i, Internal, where, "its position says ", node.position(),
                " but it is node ", i);
    const auto [it, fresh] = by_name.emplace(node.name(), &node);
    XPORT_CHECK(fresh, Internal, where, "its name is also used by node ", it->second->position());
    XPORT_CHECK(output == nullptr, Internal, where, "comes after the output node %",
                output ? output->name() : "",
                node.kind() == NodeKind::Output ? " (a graph has one output node)"
                                                : " (the output node must be last)");
    verify_references(node, i, index_of, where);
    switch (node.kind()) {
      case NodeKind::Placeholder:
        XPORT_CHECK(!seen_call, Internal, where, "placeholders must come before every call");
        XPORT_CHECK(node.args().empty() && node.outputs().size() == 1, Internal, where,
                    "a placeholder has no arguments and one value, got ", node.args().size(),
                    " arguments and ", node.outputs().size(), " values");
        XPORT_CHECK(node.op() == nullptr, Internal, where, "a placeholder has no op");
        break;
      case NodeKind::Output:
        XPORT_CHECK(node.outputs().empty() && node.op() == nullptr, Internal, where,
                    "the output node has no op and no values of its own");
        output = &node;
        seen_call = true;
        break;
      case NodeKind::Call:
        seen_call = true;
        verify_call(node, where);
        break;
    }
  }
  XPORT_CHECK(output != nullptr, Internal, "verify: the graph has no output node; call set_output");
}

}  // namespace xport::ir
