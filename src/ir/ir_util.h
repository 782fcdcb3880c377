#pragma once
// Helpers shared by the graph, printer, verifier and interpreter.

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

#include "xport/ir/ir.h"

namespace xport::ir::detail {

/// True when the node's op returns a list or several tensors: its values print as `%split[0]`.
inline bool is_multi_output(const Node& node) {
  return node.op() != nullptr &&
         (node.op()->parsed.returns_list || node.op()->parsed.returns.size() != 1);
}

/// The graph value `arg` is, or null (a literal, a list, a subgraph).
inline const ValueRef* ref_of(const Argument& arg) { return std::get_if<ValueRef>(&arg.value); }

/// The integer an argument holds, when it is a known one.
inline std::optional<int64_t> int_of(const Argument& arg) {
  const auto* e = std::get_if<sym::ExprPtr>(&arg.value);
  return e ? sym::as_int(*e) : std::nullopt;
}

/// A list of known integers (of `n` of them, when `n` is given).
inline bool known_ints(const Argument& arg, std::optional<size_t> n = std::nullopt) {
  const auto* list = std::get_if<std::vector<Argument>>(&arg.value);
  return list != nullptr && (!n || list->size() == *n) &&
         std::all_of(list->begin(), list->end(),
                     [](const Argument& a) { return int_of(a).has_value(); });
}

/// A number argument (int or float) equal to 1: alpha and beta left as they are.
inline bool is_one(const Argument& arg) {
  if (const auto* d = std::get_if<double>(&arg.value)) return *d == 1.0;
  return int_of(arg) == std::optional<int64_t>(1);
}

/// A bool argument that is false (not a value the graph computes).
inline bool is_false(const Argument& arg) {
  const auto* b = std::get_if<bool>(&arg.value);
  return b != nullptr && !*b;
}

/// Laid out row-major, dims of size 1 aside (transpose(x, 0, 1) of a [1, T, K] x): a view
/// may see it as any sizes of the same count.
inline bool dense(const TensorSpec& t) {
  sym::ExprPtr expected = sym::integer(1);
  for (size_t d = t.sizes.size(); d-- > 0;) {
    if (sym::as_int(t.sizes[d]) == std::optional<int64_t>(1)) continue;
    if (t.strides[d] != expected) return false;
    expected = sym::mul(expected, t.sizes[d]);
  }
  return true;
}

/// The call that gives `arg`, when it is a call of `op` (or of `other`); else null.
inline const Node* call_of(const Argument& arg, const OpDef& op, const OpDef* other = nullptr) {
  const ValueRef* ref = ref_of(arg);
  if (ref == nullptr || ref->node->kind() != NodeKind::Call) return nullptr;
  const OpDef* called = ref->node->op();
  return called == &op || (other != nullptr && called == other) ? ref->node : nullptr;
}

/// A 2-d matrix seen transposed: t(w), transpose(w, 0, 1) (either order, or negative dims) or
/// permute(w, [1, 0]).
inline bool is_matrix_transpose(const Node& n) {
  static const OpDef& t = find_op("aten::t");
  static const OpDef& transpose = find_op("aten::transpose.int");
  static const OpDef& permute = find_op("aten::permute");
  if (n.kind() != NodeKind::Call || n.outputs()[0].sizes.size() != 2) return false;
  if (n.op() == &t) return true;
  if (n.op() == &transpose) {
    const std::optional<int64_t> a = int_of(n.arg("dim0")), b = int_of(n.arg("dim1"));
    return a && b && ((*a % 2) + 2) % 2 != ((*b % 2) + 2) % 2;
  }
  if (n.op() != &permute) return false;
  const auto* dims = std::get_if<std::vector<Argument>>(&n.arg("dims").value);
  return dims != nullptr && dims->size() == 2 && int_of((*dims)[0]) == std::optional<int64_t>(1) &&
         int_of((*dims)[1]) == std::optional<int64_t>(0);
}

/// The one call that uses value 0 of `node`, once, when nothing else (no other call, no graph
/// output, no other value of the node) is used; else null. Patterns that absorb a chain of
/// calls (fusion, GELU recognition) follow it.
inline const Node* sole_user(const Graph& g, const Node& node) {
  const std::vector<const Node*> users = g.users(&node);
  if (users.size() != 1 || users[0]->kind() != NodeKind::Call) return nullptr;
  int uses = 0;
  for (const Argument& a : users[0]->args()) {
    const ValueRef* ref = ref_of(a);
    if (ref != nullptr && ref->node == &node) {
      if (ref->index != 0) return nullptr;
      ++uses;
    }
  }
  return uses == 1 ? users[0] : nullptr;
}

/// Whether a call strictly between `first` and `last` (by position) updates memory in place
/// (PyTorch's training IR keeps add_, relu_, copy_, ...): a pass that makes one call at `last`
/// read what calls from `first` on read must not move a read past such an update.
inline bool updates_between(const Graph& g, const Node& first, const Node& last) {
  const auto& nodes = g.nodes();
  for (size_t p = first.position() + 1; p < last.position(); ++p) {
    const Node& n = *nodes[p];
    if (n.kind() == NodeKind::Call && n.op()->kind == OpKind::InPlace) return true;
  }
  return false;
}

/// Calls fn(ref) for every ValueRef in `arg`, lists included.
template <class Fn>
void for_each_ref(const Argument& arg, Fn&& fn) {
  if (const auto* ref = std::get_if<ValueRef>(&arg.value)) {
    fn(*ref);
  } else if (const auto* list = std::get_if<std::vector<Argument>>(&arg.value)) {
    for (const Argument& a : *list) for_each_ref(a, fn);
  }
}

/// Same, with a mutable reference (for remapping).
template <class Fn>
void for_each_ref(Argument& arg, Fn&& fn) {
  if (auto* ref = std::get_if<ValueRef>(&arg.value)) {
    fn(*ref);
  } else if (auto* list = std::get_if<std::vector<Argument>>(&arg.value)) {
    for (Argument& a : *list) for_each_ref(a, fn);
  }
}

/// The value of `e` with each symbol's value from `symbols`; nullopt when one is missing (or
/// the expression divides by zero). The interpreter and the runtime's planner share it.
inline std::optional<int64_t> evaluate_with(
    sym::ExprPtr e, const std::unordered_map<sym::ExprPtr, int64_t>& symbols) {
  return sym::evaluate(e, [&](sym::ExprPtr s) -> std::optional<int64_t> {
    const auto it = symbols.find(s);
    if (it == symbols.end()) return std::nullopt;
    return it->second;
  });
}

/// Gives the unbacked symbols `node` binds their values from its results (`outs`, one per
/// output): the interpreter and the runtime share it.
template <class Symbols>
void bind_unbacked(const Node& node, const std::vector<Tensor>& outs, Symbols& symbols) {
  for (const UnbackedBinding& b : node.unbacked_bindings()) {
    const Tensor& t = outs.at(static_cast<size_t>(b.output));
    symbols[b.symbol] = b.dim < 0 ? t.item<int64_t>() : t.int_size(b.dim);
  }
}

/// `aten::addmm.default`, `aten::add.Tensor`: PyTorch's spelling of an op in a graph.
std::string op_display_name(const OpDef& op);

/// `%add_1 (aten::add.Tensor)`, `%x (placeholder)`, `%output (output)`: a node in messages.
std::string node_label(const Node& node);

/// The short form of a double as Python's repr writes it (`0.5`, `1e-05`, `1.0`, `inf`).
std::string format_double(double v);

}  // namespace xport::ir::detail
