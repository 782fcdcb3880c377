// The metadata check: each call's recorded results against its op's meta function, at given
// symbol values. It catches what a pass gets wrong that the structural verifier cannot see (a
// replacement whose results have other sizes or another dtype than the node says).
#include <algorithm>
#include <optional>

#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "ops/op_util.h"
#include "xport/core/error.h"
#include "xport/ir/ir.h"

namespace xport::ir {
namespace {

std::string point_str(const std::unordered_map<sym::ExprPtr, int64_t>& symbols) {
  std::vector<std::string> parts;
  for (const auto& [s, v] : symbols) parts.push_back(sym::str(s) + "=" + std::to_string(v));
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "" : " at " + out;
}

class MetadataCheck {
 public:
  explicit MetadataCheck(const std::unordered_map<sym::ExprPtr, int64_t>& symbols)
      : symbols_(symbols), at_(point_str(symbols)) {}

  // False when a runtime assertion of the graph fails at these values (nothing to check).
  bool run(const Graph& graph) {
    const auto& nodes = graph.nodes();
    std::vector<std::vector<Tensor>> values(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& node = *nodes[i];
      if (node.kind() == NodeKind::Output) continue;
      if (node.kind() == NodeKind::Placeholder) {
        values[i] = fakes(node.outputs());
        continue;
      }
      const OpDef& op = *node.op();
      if (has_tag(op, Tag::RuntimeAssert)) {
        const auto* cond = std::get_if<sym::ExprPtr>(&node.args()[0].value);
        const std::optional<int64_t> holds = cond ? evaluate(*cond) : std::nullopt;
        if (holds && *holds == 0) return false;
      }
      if (op.kind == OpKind::HigherOrder || op.kind == OpKind::Composite || op.cpu_alloc) {
        // Subgraphs are checked on their own; data-dependent results are as the node says.
        for (const SubgraphRef* g : node.subgraphs()) {
          if (!run(*g->graph)) return false;
        }
        values[i] = fakes(node.outputs());
        continue;
      }
      values[i] = check_call(node, values);
    }
    return true;
  }

 private:

  std::optional<int64_t> evaluate(sym::ExprPtr e) const {
    return detail::evaluate_with(e, symbols_);
  }

  int64_t evaluate_or_throw(sym::ExprPtr e) const {
    const std::optional<int64_t> v = evaluate(e);
    if (!v) throw Unknown{};
    return *v;
  }

  // A tensor with no storage per spec; empty when a size needs a symbol without a value.
  std::vector<Tensor> fakes(const std::vector<TensorSpec>& specs) const {
    std::vector<Tensor> out;
    for (const TensorSpec& spec : specs) {
      std::optional<TensorMeta> meta = spec.none ? std::nullopt : spec.concrete(symbols_);
      out.push_back(meta ? Tensor::make(nullptr, std::move(*meta)) : Tensor());
    }
    return out;
  }

  std::vector<Tensor> check_call(const Node& node,
                                 const std::vector<std::vector<Tensor>>& values) const {
    const OpDef& op = *node.op();
    const std::string name = "verify: node %" + node.name() + " (" + op.qualified_name + ")";
    std::vector<Value> args;
    try {
      for (size_t a = 0; a < node.args().size(); ++a) {
        args.push_back(argument_value(
            node.args()[a], op.parsed.arguments[a].type,
            [&](const ValueRef& r) {
              const Tensor& t = values[r.node->position()].at(static_cast<size_t>(r.index));
              if (!t.defined()) throw Unknown{};
              return t;
            },
            [&](sym::ExprPtr e) { return evaluate_or_throw(e); }));
      }
    } catch (const Unknown&) {
      return fakes(node.outputs());  // an argument depends on a value only data gives
    }
    std::vector<TensorMeta> metas;
    try {
      metas = op.meta(bind_args(op, std::move(args)));
    } catch (const Error& e) {
      XPORT_FAIL(Internal, name, ": its op refuses the node's arguments", at_, ": ", e.what());
    }
    XPORT_CHECK(metas.size() == node.outputs().size(), Internal, name, ": the op gives ",
                metas.size(), " results, the node records ", node.outputs().size());
    std::vector<Tensor> out;
    for (size_t o = 0; o < metas.size(); ++o) {
      const TensorSpec& spec = node.outputs()[o];
      XPORT_CHECK(spec.none == metas[o].none, Internal, name, ": result ", o, " is recorded as ",
                  spec.str(), at_, " but the op's meta function gives ",
                  metas[o].none ? "None" : "a tensor");
      if (spec.none) {
        out.emplace_back();
        continue;
      }
      std::string recorded = dtype_short_name(spec.dtype) + std::string("[");
      bool same = spec.dtype == metas[o].dtype && spec.sizes.size() == metas[o].sizes.size();
      for (size_t d = 0; d < spec.sizes.size(); ++d) {
        const std::optional<int64_t> v = evaluate(spec.sizes[d]);
        recorded += (d ? ", " : "") + (v ? std::to_string(*v) : sym::str(spec.sizes[d]));
        same = same && d < metas[o].sizes.size() && v && metas[o].sizes[d].maybe_int() == v;
      }
      XPORT_CHECK(same, Internal, name, ": result ", o, " is recorded as ", spec.str(), " (",
                  recorded, "]", at_, ") but the op's meta function gives ",
                  dtype_short_name(metas[o].dtype), ops::shape_str(metas[o].sizes));
      out.push_back(Tensor::make(nullptr, std::move(metas[o])));
    }
    return out;
  }

  struct Unknown {};
  const std::unordered_map<sym::ExprPtr, int64_t>& symbols_;
  std::string at_;
};

}  // namespace

bool verify_metadata(const Graph& graph,
                     const std::unordered_map<sym::ExprPtr, int64_t>& symbols) {
  return MetadataCheck(symbols).run(graph);
}

}  // namespace xport::ir
