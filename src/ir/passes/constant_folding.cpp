#include "ir/passes/constant_folding.h"

#include <optional>

#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "xport/core/error.h"

namespace xport::ir::passes {
namespace {

constexpr int64_t kSmallResultBytes = 4096;

int64_t bytes_of(const Tensor& t) { return t.int_numel() * element_size(t.dtype()); }

bool may_fold(const Node& node) {
  const OpDef& op = *node.op();
  return (op.kind == OpKind::Functional || op.kind == OpKind::View) && !op.user_defined &&
         !node.outputs().empty() && node.unbacked_bindings().empty() &&
         !has_tag(op, Tag::NondeterministicSeeded);
}

// The call's results when every argument is known, else nothing.
std::optional<std::vector<Tensor>> evaluate(const ConstantGraph& g, const Node& node) {
  const OpDef& op = *node.op();
  bool known = true;
  int64_t input_bytes = 0;
  std::vector<Value> values;
  try {
    for (size_t i = 0; i < node.args().size() && known; ++i) {
      values.push_back(argument_value(
          node.args()[i], op.parsed.arguments[i].type,
          [&](const ValueRef& r) {
            const Tensor t = g.constant(Argument(r));
            known = known && t.defined();
            if (t.defined()) input_bytes += bytes_of(t);
            return t;
          },
          constant_int));
    }
  } catch (const Error&) {
    return std::nullopt;  // a symbolic size
  }
  if (!known) return std::nullopt;
  std::vector<Tensor> outs = run_eager(bind_args(op, std::move(values)));
  if (op.kind != OpKind::View) {
    int64_t output_bytes = 0;
    for (const Tensor& t : outs) output_bytes += bytes_of(t);
    if (output_bytes > std::max(input_bytes, kSmallResultBytes)) return std::nullopt;
  }
  return outs;
}

}  // namespace

int fold_constants(ConstantGraph& g) {
  std::vector<Node*> calls;
  for (const auto& node : g.graph.nodes()) {
    if (node->kind() == NodeKind::Call && may_fold(*node)) calls.push_back(node.get());
  }
  int folded = 0;
  for (Node* node : calls) {
    std::optional<std::vector<Tensor>> outs = evaluate(g, *node);
    if (!outs || outs->size() != node->outputs().size()) continue;
    for (size_t o = 0; o < outs->size(); ++o) {
      const std::string name =
          "_folded_" + node->name() + (outs->size() > 1 ? "_" + std::to_string(o) : "");
      g.graph.replace_all_uses(node->out(static_cast<int>(o)), g.add_constant(name, (*outs)[o]));
    }
    g.graph.erase(node);
    ++folded;
  }
  return folded;
}

}  // namespace xport::ir::passes
