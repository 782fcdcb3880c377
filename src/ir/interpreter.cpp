// The interpreter: runs each call's eager kernel, releasing every value after its last use.

#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "xport/core/error.h"
#include "xport/ir/ir.h"

namespace xport::ir {
namespace {

class Interpreter {
 public:
  // `verified`: a subgraph of a graph verified before (verify() recurses), run once per
  // iteration of a loop, is not verified again.
  Interpreter(const Graph& graph, const std::unordered_map<sym::ExprPtr, int64_t>& symbols,
              bool verified = false)
      : graph_(graph), symbols_(symbols), verified_(verified) {}

  std::vector<Tensor> run(const std::vector<Tensor>& inputs) {
    if (!verified_) graph_.verify();
    plan_releases();
    const auto& nodes = graph_.nodes();
    values_.resize(nodes.size());
    size_t next_input = 0;
    const size_t num_inputs = graph_.placeholders().size();
    XPORT_CHECK(inputs.size() == num_inputs, InvalidInput, "interpret: the graph takes ",
                num_inputs, " inputs, got ", inputs.size());
    std::vector<Tensor> results;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& node = *nodes[i];
      switch (node.kind()) {
        case NodeKind::Placeholder:
          check_input(node, next_input, inputs[next_input]);
          values_[i] = {inputs[next_input++]};
          break;
        case NodeKind::Call:
          values_[i] = run_call(node);
          detail::bind_unbacked(node, values_[i], symbols_);
          break;
        case NodeKind::Output:
          for (size_t r = 0; r < node.args().size(); ++r) {
            const auto* ref = std::get_if<ValueRef>(&node.args()[r].value);
            XPORT_CHECK(ref != nullptr, InvalidInput, "interpret: result ", r, " is ",
                        node.args()[r].str(), ", not a tensor; interpret returns tensors only");
            results.push_back(tensor_of(*ref));
          }
          break;
      }
      for (const ValueRef& dead : release_after_[i])
        values_[dead.node->position()][dead.index] = {};
    }
    return results;
  }

 private:
  // release_after_[i]: the values whose last use is node i (or i itself, if never used).
  void plan_releases() {
    const auto& nodes = graph_.nodes();
    std::vector<std::vector<size_t>> last_use(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) last_use[i].assign(nodes[i]->outputs().size(), i);
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (const Argument& a : nodes[i]->args()) {
        detail::for_each_ref(a, [&](const ValueRef& r) {
          last_use[r.node->position()][static_cast<size_t>(r.index)] = i;
        });
      }
    }
    release_after_.assign(nodes.size(), {});
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (size_t v = 0; v < last_use[i].size(); ++v) {
        release_after_[last_use[i][v]].push_back(nodes[i]->out(static_cast<int>(v)));
      }
    }
  }

  const Tensor& tensor_of(const ValueRef& ref) const {
    return values_[ref.node->position()][static_cast<size_t>(ref.index)];
  }

  std::optional<int64_t> try_evaluate(sym::ExprPtr e) const {
    return detail::evaluate_with(e, symbols_);
  }

  int64_t evaluate(sym::ExprPtr e, const std::string& where) const {
    if (const auto v = try_evaluate(e)) return *v;
    for (sym::ExprPtr s : sym::free_symbols(e)) {
      XPORT_CHECK(symbols_.count(s), InvalidInput, where, sym::str(e), " needs the value of ",
                  sym::str(s), ", which `symbols` does not give");
    }
    XPORT_FAIL(InvalidInput, where, sym::str(e), " divides by zero with the given symbols");
  }

  // `f32[s0, 3] = [2, 3]`: the spec with its sizes evaluated where the symbols allow.
  std::string spec_with_values(const TensorSpec& spec) const {
    std::string out = spec.str() + " = [";
    for (size_t d = 0; d < spec.sizes.size(); ++d) {
      const auto v = try_evaluate(spec.sizes[d]);
      out += (d ? ", " : "") + (v ? std::to_string(*v) : sym::str(spec.sizes[d]));
    }
    return out + "]";
  }

  // Dtype and every size the symbols determine match the spec.
  bool matches(const Tensor& t, const TensorSpec& spec) const {
    if (spec.none) return !t.defined();
    if (!t.defined() || t.dtype() != spec.dtype) return false;
    if (static_cast<size_t>(t.dim()) != spec.sizes.size()) return false;
    for (size_t d = 0; d < spec.sizes.size(); ++d) {
      const auto want = try_evaluate(spec.sizes[d]);
      if (want && t.sizes()[d].maybe_int() != want) return false;
    }
    return true;
  }

  void check_input(const Node& node, size_t index, const Tensor& t) const {
    XPORT_CHECK(matches(t, node.outputs()[0]), InvalidInput, "interpret: input ", index, " (%",
                node.name(), ") is ", t.defined() ? Value(t).str() : "undefined",
                ", the graph expects ", spec_with_values(node.outputs()[0]));
  }

  std::vector<Tensor> run_call(const Node& node) const {
    const OpDef& op = *node.op();
    const std::string where = "interpret: node " + detail::node_label(node) + ": ";
    std::vector<Value> values;
    values.reserve(node.args().size());
    for (size_t a = 0; a < node.args().size(); ++a) {
      const std::string arg_where =
          where + "argument " + std::to_string(a) + " (" + op.parsed.arguments[a].name + "): ";
      values.push_back(argument_value(
          node.args()[a], op.parsed.arguments[a].type,
          [&](const ValueRef& ref) { return tensor_of(ref); },
          [&](sym::ExprPtr e) { return evaluate(e, arg_where); },
          [&](const SubgraphRef& g) -> GraphFn {
            // The subgraph sees the same symbols; it is verified with the graph that owns it.
            return [graph = g.graph, symbols = &symbols_](const std::vector<Tensor>& inputs) {
              return Interpreter(*graph, *symbols, /*verified=*/true).run(inputs);
            };
          }));
    }
    std::vector<Tensor> outs = run_eager(bind_args(op, std::move(values)));
    // A list result's length can depend on the symbols (split of a dynamic dim).
    XPORT_CHECK(outs.size() == node.outputs().size(), InvalidInput, where, "produced ", outs.size(),
                " values, the graph has ", node.outputs().size(),
                " for it; the symbols do not fit the graph");
    for (size_t o = 0; o < outs.size(); ++o) {
      XPORT_CHECK(matches(outs[o], node.outputs()[o]), Internal, where, "output ", o, " is ",
                  Value(outs[o]).str(), ", its spec says ", spec_with_values(node.outputs()[o]));
    }
    return outs;
  }

  const Graph& graph_;
  std::unordered_map<sym::ExprPtr, int64_t> symbols_;  // the inputs', then the unbacked ones
  bool verified_ = false;
  std::vector<std::vector<Tensor>> values_;  // per node, per value
  std::vector<std::vector<ValueRef>> release_after_;
};

}  // namespace

std::vector<Tensor> interpret(const Graph& graph, const std::vector<Tensor>& inputs,
                              const std::unordered_map<sym::ExprPtr, int64_t>& symbols) {
  return Interpreter(graph, symbols).run(inputs);
}

}  // namespace xport::ir
