#include "ir/passes/reinplace.h"

#include <unordered_set>

#include "ir/ir_util.h"
#include "xport/ops/op_registry.h"

namespace xport::ir::passes {
namespace {

using detail::ref_of;

bool is_view(const Node& node) {
  return node.kind() == NodeKind::Call && node.op()->kind == OpKind::View;
}

// Whether `update` (whose first argument is `buffer`) is the last node to read the buffer's
// memory: every other reader of the buffer or of a view of it comes before it.
bool last_reader(const Graph& graph, const Node* buffer, const Node* update) {
  std::unordered_set<const Node*> aliases = {buffer};
  for (const auto& node : graph.nodes()) {
    if (node.get() == update || node->kind() == NodeKind::Placeholder) continue;
    bool reads = false;
    for (const Argument& a : node->args()) {
      detail::for_each_ref(a, [&](const ValueRef& r) {
        reads = reads || aliases.count(r.node) > 0;
      });
    }
    if (!reads) continue;
    if (is_view(*node)) {
      aliases.insert(node.get());  // its readers read the buffer too
    } else if (node->position() > update->position()) {
      return false;
    }
  }
  // The update must not read the buffer through another argument either.
  for (size_t a = 1; a < update->args().size(); ++a) {
    bool aliased = false;
    detail::for_each_ref(update->args()[a], [&](const ValueRef& r) {
      aliased = aliased || aliases.count(r.node) > 0;
    });
    if (aliased) return false;
  }
  return true;
}

}  // namespace

std::vector<size_t> reinplace_updates(Graph& graph, const std::vector<InputUpdate>& updates) {
  std::vector<size_t> done;
  const std::vector<const Node*> placeholders = graph.placeholders();
  for (const InputUpdate& u : updates) {
    const Node* buffer = placeholders.at(u.input);
    const ValueRef* result = ref_of(graph.output()->args().at(u.output));
    if (result == nullptr || result->index != 0) continue;
    const Node* update = result->node;
    if (update->kind() != NodeKind::Call || update->outputs().size() != 1) continue;
    const OpDef* inplace = inplace_variant(*update->op());
    const ValueRef* self = update->args().empty() ? nullptr : ref_of(update->args()[0]);
    if (inplace == nullptr || self == nullptr || self->node != buffer) continue;
    const TensorSpec& old_value = buffer->outputs()[0];
    const TensorSpec& new_value = update->outputs()[0];
    if (old_value.dtype != new_value.dtype || old_value.sizes != new_value.sizes) continue;
    if (!last_reader(graph, buffer, update)) continue;
    Node* in_place = graph.insert_call(update->position() + 1, *inplace, update->args(),
                                           update->outputs(), update->meta());
    graph.replace_all_uses(update->out(), in_place->out());
    done.push_back(u.output);
  }
  if (!done.empty()) graph.eliminate_dead_code();
  return done;
}

}  // namespace xport::ir::passes
