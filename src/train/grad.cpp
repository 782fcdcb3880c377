// train::grad: reverse-mode differentiation of a captured program. The program is re-traced
// over its own symbols (ops without a derivative rule decomposed), then each call on the way
// from the loss back to the wanted inputs runs its op's derivative rule on the same tracer, last
// call first, so the backward pass lands in the same graph as ordinary nodes.
#include <map>
#include <set>
#include <utility>

#include "capture/replay.h"
#include "ir/ir_util.h"
#include "xport/ops/derivative.h"
#include "xport/ops/factories.h"
#include "xport/train/train.h"

namespace xport::train {
namespace {

using Ref = std::pair<const ir::Node*, int>;

Ref key(const ir::ValueRef& r) { return {r.node, r.index}; }

bool is_floating_value(const ir::TensorSpec& spec) { return is_floating(spec.dtype); }

// Where a node came from, for errors: the user's line and module, when recorded.
std::string origin(const ir::Node& node) {
  std::string s = "%" + node.name();
  if (!node.meta().source.empty()) s += " at " + node.meta().source;
  if (!node.meta().module_path.empty()) s += " (in " + node.meta().module_path + ")";
  return s;
}

// The backward pass over the graph `tracer` has traced so far.
class Backprop {
 public:
  Backprop(capture::Tracer& tracer, ir::Graph& graph) : tracer_(tracer), graph_(graph) {}

  /// d `loss` / d each of `wrt` (placeholders), undefined for one the loss does not reach.
  std::vector<Tensor> run(const Tensor& loss, const std::vector<const ir::Node*>& wrt) {
    std::vector<const ir::Node*> nodes;  // the forward pass, before backward nodes are added
    for (const auto& n : graph_.nodes()) nodes.push_back(n.get());
    mark_differentiable(nodes, wrt);
    const ir::ValueRef loss_ref = tracer_.value_of(loss);
    if (!wanted_.count(key(loss_ref))) return std::vector<Tensor>(wrt.size());
    InterceptorGuard guard(&tracer_);  // every op below is recorded
    grads_[key(loss_ref)] = ones_like(loss);
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      if ((*it)->kind() == ir::NodeKind::Call) backward(**it);
    }
    std::vector<Tensor> result;
    for (const ir::Node* p : wrt) {
      auto found = grads_.find({p, 0});
      result.push_back(found == grads_.end() ? Tensor() : found->second);
    }
    return result;
  }

 private:
  // Which values depend on a wanted input through floating values (forward order).
  void mark_differentiable(const std::vector<const ir::Node*>& nodes,
                           const std::vector<const ir::Node*>& wrt) {
    for (const ir::Node* p : wrt) wanted_.insert({p, 0});
    for (const ir::Node* n : nodes) {
      if (n->kind() != ir::NodeKind::Call) continue;
      bool reached = false;
      for (const ir::Argument& a : n->args()) {
        ir::detail::for_each_ref(a, [&](const ir::ValueRef& r) {
          reached = reached || wanted_.count(key(r)) > 0;
        });
      }
      if (!reached) continue;
      for (size_t i = 0; i < n->outputs().size(); ++i) {
        if (is_floating_value(n->outputs()[i])) wanted_.insert({n, static_cast<int>(i)});
      }
    }
  }

  Tensor fake(const ir::ValueRef& ref) {
    return tracer_.make_fake(tracer_.meta_of(ref.node->outputs().at(ref.index)), ref);
  }

  void accumulate(const ir::ValueRef& ref, const Tensor& grad) {
    if (!grad.defined() || !wanted_.count(key(ref))) return;
    auto [it, inserted] = grads_.emplace(key(ref), grad);
    if (!inserted) it->second = it->second + grad;
  }

  void backward(const ir::Node& node) {
    std::vector<Tensor> out_grads(node.outputs().size());
    bool any = false;
    for (size_t i = 0; i < out_grads.size(); ++i) {
      auto found = grads_.find({&node, static_cast<int>(i)});
      if (found == grads_.end()) continue;
      out_grads[i] = found->second;
      any = true;
    }
    if (!any) return;
    const OpDef& op = *node.op();
    for (size_t i = 0; i < out_grads.size(); ++i) {
      XPORT_CHECK(!out_grads[i].defined() || op.differentiable_results < 0 ||
                      static_cast<int>(i) < op.differentiable_results,
                  UnsupportedOp, "grad: the loss depends on result ", i, " of ",
                  op.qualified_name, " (", origin(node), "), which passes no gradient back (as "
                  "in PyTorch); compute that value with differentiable ops");
    }
    // Which arguments want a gradient: a tensor (or list of them) that depends on `wrt`.
    std::vector<bool> needs(node.args().size(), false);
    bool needed = false;
    for (size_t i = 0; i < node.args().size(); ++i) {
      ir::detail::for_each_ref(node.args()[i], [&](const ir::ValueRef& r) {
        if (wanted_.count(key(r))) needs[i] = needed = true;
      });
    }
    if (!needed) return;
    XPORT_CHECK(!op.higher_order, UnsupportedOp, "grad: ", op.qualified_name, " (",
                origin(node), ") takes subgraphs; gradients through control flow are not "
                "supported yet");
    XPORT_CHECK(static_cast<bool>(op.derivative), UnsupportedOp, "grad: ", op.qualified_name,
                " has no derivative rule, and the loss depends on its result (", origin(node),
                "); compute that value with differentiable ops, or leave it out of `wrt`'s way");
    std::vector<Value> values;
    for (size_t i = 0; i < node.args().size(); ++i) {
      values.push_back(capture::replayed_argument(
          node.args()[i], op.parsed.arguments[i].type,
          [&](const ir::ValueRef& r) { return fake(r); }, *tracer_.env()));
    }
    std::vector<Tensor> results;
    for (size_t i = 0; i < node.outputs().size(); ++i) {
      results.push_back(fake({&node, static_cast<int>(i)}));
    }
    const OpArgs args(op, std::move(values));
    tracer_.set_inherited_meta(&node.meta());  // backward nodes keep the forward's line
    const std::vector<Value> grads = run_derivative(args, results, std::move(out_grads), needs);
    tracer_.set_inherited_meta(nullptr);
    for (size_t i = 0; i < grads.size(); ++i) {
      if (!needs[i] || grads[i].is_none()) continue;
      const ir::Argument& arg = node.args()[i];
      if (grads[i].is_tensor()) {
        accumulate(std::get<ir::ValueRef>(arg.value), grads[i].to_tensor());
        continue;
      }
      const auto& list = std::get<std::vector<ir::Argument>>(arg.value);
      const std::vector<Tensor>& parts = grads[i].to_tensor_list();
      for (size_t k = 0; k < list.size() && k < parts.size(); ++k) {
        if (const auto* r = std::get_if<ir::ValueRef>(&list[k].value)) accumulate(*r, parts[k]);
      }
    }
  }

  capture::Tracer& tracer_;
  ir::Graph& graph_;
  std::set<Ref> wanted_;
  std::map<Ref, Tensor> grads_;
};

// Ops without a derivative rule that decompose: traced as their decompositions, whose ops have
// rules (scaled_dot_product_attention, silu, masked_fill, ...). Made per call: a Library may
// have added ops since.
DecompositionTable undifferentiated_decompositions() {
  DecompositionTable table;
  for (const OpDef* op : all_ops()) {
    if (!op->derivative && op->decomp) table[op->qualified_name] = op->decomp;
  }
  return table;
}

}  // namespace

ExportedProgram grad(const ExportedProgram& program, const std::vector<std::string>& wrt) {
  const GraphSignature& sig = program.signature();
  size_t user_outputs = 0;
  for (const OutputSpec& o : sig.outputs) user_outputs += o.kind == OutputSpec::Kind::UserOutput;
  XPORT_CHECK(user_outputs == 1, InvalidSpec, "grad: the program must return one 0-dim loss; it "
              "returns ", user_outputs, " outputs (return the loss alone, e.g. "
              "`return loss_fn(model(x), y);`)");
  XPORT_CHECK(!wrt.empty(), InvalidSpec, "grad: name at least one parameter or input in `wrt`");
  // Each name of `wrt` as an input index: parameters and buffers by path, user inputs by name.
  std::vector<size_t> inputs;
  for (const std::string& name : wrt) {
    size_t found = sig.inputs.size();
    std::string known;
    for (size_t i = 0; i < sig.inputs.size(); ++i) {
      const InputSpec& in = sig.inputs[i];
      const std::string& spelled = in.kind == InputSpec::Kind::UserInput ? in.name : in.target;
      if (spelled == name) found = i;
      known += (known.empty() ? "" : ", ") + spelled;
    }
    XPORT_CHECK(found < sig.inputs.size(), InvalidSpec, "grad: '", name,
                "' is not an input of the program; its inputs are: ", known);
    inputs.push_back(found);
  }
  const auto replaced = [&](capture::ReplayEdit& edit, const std::vector<Tensor>& outs) {
    const Tensor& loss = outs.at(0);
    XPORT_CHECK(loss.dim() == 0 && is_floating(loss.dtype()), InvalidSpec,
                "grad: the program's result must be a 0-dim floating loss; it is ",
                dtype_name(loss.dtype()), " of ", loss.dim(), " dims (reduce it, e.g. with "
                ".mean() or .sum())");
    const std::vector<const ir::Node*> placeholders = edit.graph.placeholders();
    std::vector<const ir::Node*> targets;
    for (size_t k = 0; k < inputs.size(); ++k) {
      const ir::Node* p = placeholders.at(inputs[k]);
      XPORT_CHECK(is_floating(p->outputs()[0].dtype), InvalidSpec, "grad: '", wrt[k],
                  "' is ", dtype_name(p->outputs()[0].dtype),
                  "; only floating values have gradients");
      targets.push_back(p);
    }
    const std::vector<Tensor> grads = Backprop(edit.tracer, edit.graph).run(loss, targets);
    std::vector<capture::ReplayedResult> results = {{loss, {}}};
    for (size_t k = 0; k < grads.size(); ++k) {
      XPORT_CHECK(grads[k].defined(), InvalidSpec, "grad: the loss does not depend on '", wrt[k],
                  "'; leave it out of `wrt` (or check that the forward uses it)");
      results.push_back({grads[k], {}});
    }
    return results;
  };
  return capture::replay_program(program, undifferentiated_decompositions(), "grad", replaced);
}

}  // namespace xport::train
