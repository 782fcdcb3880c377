// The higher-order ops cond, map_impl and while_loop: their schemas (PyTorch's argument names),
// how each calls its subgraphs, and the kernels that run them. The kernels take each subgraph
// as a GraphFn, so eager execution (the user's functions), the interpreter and the runtime
// (graphs) share them.
#include "ops/register_all.h"
#include "xport/ops/op_registry.h"
#include "xport/ops/shape_functions.h"

namespace xport::ops {
namespace {

using Returns = SubgraphUse::Returns;

// A predicate: a bool tensor with one element, or a (Sym)Bool's value.
bool predicate(const OpArgs& args, const Value& v, const char* what) {
  if (v.is_bool()) return v.to_bool();
  if (v.is_int()) return v.to_int() != 0;
  XPORT_CHECK(v.is_tensor(), InvalidInput, args.name(), ": ", what,
              " must be a bool tensor with one element or a bool, got ", v.type_name());
  const Tensor& t = v.to_tensor();
  XPORT_CHECK(t.dtype() == DType::Bool && t.numel().maybe_int() == std::optional<int64_t>(1),
              InvalidInput, args.name(), ": ", what,
              " must be a bool tensor with one element, got ", Value(t).str(),
              "; compare to get one (x.sum() > 0)");
  return t.item<bool>();
}

// Results are contiguous whichever branch or iteration made them, as the graph's specs say.
std::vector<Tensor> contiguous(std::vector<Tensor> ts) {
  for (Tensor& t : ts) {
    if (!t.is_contiguous()) t = t.contiguous();
  }
  return ts;
}

std::vector<Tensor> cond_kernel(const OpArgs& args) {
  const bool pred = predicate(args, args["pred"], "the predicate");
  const GraphFn& branch = args[pred ? "true_fn" : "false_fn"].to_graph();
  return contiguous(branch(args.tensors("operands")));
}

std::vector<Tensor> concat(std::vector<Tensor> a, const std::vector<Tensor>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<Tensor> map_kernel(const OpArgs& args) {
  const GraphFn& body = args["f"].to_graph();
  const std::vector<Tensor>& xs = args.tensors("xs");
  XPORT_CHECK(!xs.empty() && xs[0].dim() > 0, InvalidInput, args.name(),
              ": maps over the leading dim of xs, which needs at least one tensor of rank >= 1");
  const int64_t n = xs[0].size(0).guard_int();
  for (const Tensor& x : xs) {
    XPORT_CHECK(x.dim() > 0 && x.size(0).guard_int() == n, InvalidInput, args.name(),
                ": every tensor in xs needs the same leading size (", n, "), got ",
                Value(x).str());
  }
  XPORT_CHECK(n > 0, InvalidInput, args.name(),
              ": xs has no elements along its leading dim; map needs at least one");
  std::vector<std::vector<Tensor>> per_output;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<Tensor> slices;
    for (const Tensor& x : xs) slices.push_back(x.select(0, i));
    std::vector<Tensor> outs = body(concat(std::move(slices), args.tensors("pos_args")));
    if (i == 0) per_output.resize(outs.size());
    XPORT_CHECK(outs.size() == per_output.size(), InvalidInput, args.name(),
                ": the body returned ", outs.size(), " tensors for element ", i, " and ",
                per_output.size(), " for element 0");
    for (size_t o = 0; o < outs.size(); ++o) per_output[o].push_back(std::move(outs[o]));
  }
  std::vector<Tensor> stacked;
  for (const std::vector<Tensor>& parts : per_output) stacked.push_back(stack(parts, 0));
  return stacked;
}

std::vector<Tensor> while_loop_kernel(const OpArgs& args) {
  const GraphFn& cond_fn = args["cond_fn"].to_graph();
  const GraphFn& body_fn = args["body_fn"].to_graph();
  std::vector<Tensor> carried = args.tensors("carried_inputs");
  const std::vector<Tensor>& additional = args.tensors("additional_inputs");
  for (;;) {
    const std::vector<Tensor> c = cond_fn(concat(carried, additional));
    XPORT_CHECK(c.size() == 1, InvalidInput, args.name(), ": cond_fn returned ", c.size(),
                " tensors; it returns one bool tensor with one element");
    if (!predicate(args, Value(c[0]), "cond_fn's result")) break;
    std::vector<Tensor> next = body_fn(concat(carried, additional));
    XPORT_CHECK(next.size() == carried.size(), InvalidInput, args.name(), ": body_fn returned ",
                next.size(), " tensors for ", carried.size(), " carried values");
    for (size_t i = 0; i < next.size(); ++i) {
      bool same = next[i].dtype() == carried[i].dtype() && next[i].dim() == carried[i].dim();
      for (int64_t d = 0; same && d < next[i].dim(); ++d) {
        same = next[i].size(d).maybe_int() == carried[i].size(d).maybe_int();
      }
      XPORT_CHECK(same, InvalidInput, args.name(), ": body_fn turned carried value ", i, " from ",
                  Value(carried[i]).str(), " into ", Value(next[i]).str(),
                  "; each carried value keeps its dtype and sizes");
    }
    carried = std::move(next);
  }
  return contiguous(std::move(carried));
}

}  // namespace

void register_control_flow_ops() {
  register_op({
      .schema = "higher_order::cond(Any pred, GraphModule true_fn, GraphModule false_fn, "
                "Tensor[] operands) -> Tensor[]",
      .cpu_alloc = cond_kernel,
      .core = true,  // higher-order ops stay in the core op set, as in PyTorch
      .subgraph_uses = {{.graph_arg = 1, .inputs = {3}, .returns = Returns::Outputs},
                        {.graph_arg = 2, .inputs = {3}, .returns = Returns::Outputs}},
  });
  register_op({
      .schema = "higher_order::map_impl(GraphModule f, Tensor[] xs, Tensor[] pos_args) -> Tensor[]",
      .cpu_alloc = map_kernel,
      .core = true,
      .subgraph_uses = {{.graph_arg = 0,
                         .inputs = {1, 2},
                         .sliced_first = true,
                         .returns = Returns::SlicedOutputs}},
  });
  register_op({
      .schema = "higher_order::while_loop(GraphModule cond_fn, GraphModule body_fn, "
                "Tensor[] carried_inputs, Tensor[] additional_inputs) -> Tensor[]",
      .cpu_alloc = while_loop_kernel,
      .core = true,
      .subgraph_uses = {{.graph_arg = 0, .inputs = {2, 3}, .returns = Returns::Predicate},
                        {.graph_arg = 1, .inputs = {2, 3}, .returns = Returns::Outputs}},
  });
}

}  // namespace xport::ops
