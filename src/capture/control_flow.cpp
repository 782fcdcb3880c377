// cond, map and while_loop: outside capture each calls its higher-order op with the user's
// functions; under capture each traces its functions into subgraphs (one per function, all
// taking the same inputs and the same closed-over tensors) and records one node.
#include "xport/capture/control_flow.h"

#include "capture/call_site.h"
#include "capture/expr_node.h"
#include "capture/tracer.h"
#include "xport/ops/op_registry.h"

namespace xport {
namespace {

using capture::Tracer;
using capture::active_tracer;

std::string at_user_line() {
  const std::string source = capture::user_source(capture::capture_call_site());
  return source.empty() ? "" : " (" + source + ")";
}

// One function traced as a subgraph.
struct Traced {
  std::shared_ptr<ir::Graph> graph;
  std::vector<ir::TensorSpec> results;
};

TensorMeta input_meta(const Tensor& t, bool sliced) {
  TensorMeta meta = t.meta();
  if (sliced) meta.sizes.erase(meta.sizes.begin());
  meta.strides = contiguous_strides(meta.sizes);
  meta.storage_offset = 0;
  return meta;
}

// Traces `fns` into subgraphs of the graph `outer` builds. Each takes `inputs` (the first
// `sliced` of them without their leading dim), then every outer tensor any of them closes over
// (`closures`, the same list for all): a function that closes over a tensor the others did not
// see makes them trace again with it.
std::vector<Traced> trace_functions(Tracer& outer, const std::vector<GraphFn>& fns,
                                    const std::vector<Tensor>& inputs, size_t sliced,
                                    std::vector<Tensor>& closures) {
  for (;;) {
    std::vector<Traced> traced;
    bool stable = true;
    for (const GraphFn& fn : fns) {
      auto graph = std::make_shared<ir::Graph>();
      Tracer child(*graph, outer.env(), &outer);
      std::vector<Tensor> args;
      for (size_t i = 0; i < inputs.size(); ++i) {
        const TensorMeta meta = input_meta(inputs[i], i < sliced);
        args.push_back(child.make_fake(meta, child.add_subgraph_input(inputs[i], meta)));
      }
      for (const Tensor& c : closures) child.lift(c, child.add_subgraph_input(c, c.meta()));
      std::vector<Tensor> outs;
      {
        InterceptorGuard guard(&child);
        outs = fn(args);
      }
      Traced t{graph, {}};
      std::vector<ir::Argument> results;
      for (const Tensor& out : outs) {
        XPORT_CHECK(out.defined(), InvalidSpec, "a cond / map / while_loop function returned an "
                    "undefined tensor", at_user_line());
        const ir::ValueRef ref = child.value_of(out);
        results.emplace_back(ref);
        t.results.push_back(ir::TensorSpec::contiguous(
            ref.node->outputs()[static_cast<size_t>(ref.index)].dtype,
            ref.node->outputs()[static_cast<size_t>(ref.index)].sizes));
      }
      graph->set_output(std::move(results));
      if (!child.closures().empty()) {
        stable = false;
        closures.insert(closures.end(), child.closures().begin(), child.closures().end());
      }
      traced.push_back(std::move(t));
    }
    if (stable) return traced;
  }
}

std::vector<ir::Argument> refs(Tracer& tracer, const std::vector<Tensor>& tensors) {
  std::vector<ir::Argument> out;
  for (const Tensor& t : tensors) out.emplace_back(tracer.value_of(t));
  return out;
}

std::vector<Tensor> concat(std::vector<Tensor> a, const std::vector<Tensor>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool same(const ir::TensorSpec& a, const ir::TensorSpec& b) {
  return a.dtype == b.dtype && a.sizes == b.sizes;
}

std::string specs_str(const std::vector<ir::TensorSpec>& specs) {
  std::string out = "(";
  for (size_t i = 0; i < specs.size(); ++i) out += (i ? ", " : "") + specs[i].str();
  return out + ")";
}

std::vector<Tensor> traced_cond(Tracer& tracer, ir::Argument pred, const BranchFn& true_fn,
                                const BranchFn& false_fn, const std::vector<Tensor>& operands) {
  std::vector<Tensor> closures;
  const std::vector<Traced> branches =
      trace_functions(tracer, {true_fn, false_fn}, operands, 0, closures);
  const std::vector<ir::TensorSpec>& t = branches[0].results;
  const std::vector<ir::TensorSpec>& f = branches[1].results;
  bool matching = t.size() == f.size();
  for (size_t i = 0; matching && i < t.size(); ++i) {
    matching = t[i].dtype == f[i].dtype && t[i].sizes.size() == f[i].sizes.size();
  }
  XPORT_CHECK_CASE(matching, InvalidSpec, "cond_branch_mismatch",
                   "cond: the branches return different tensors: true_fn returns ", specs_str(t),
                   ", false_fn returns ", specs_str(f), at_user_line(),
                   "; both branches must return the same number of tensors with the same dtypes "
                   "and ranks");
  // A size the branches disagree on is whichever branch runs: a new unbacked symbol, bound by
  // the node, in the union of the two sizes' ranges.
  std::vector<ir::TensorSpec> specs = t;
  std::vector<ir::UnbackedBinding> bindings;
  capture::ShapeEnv& env = *tracer.env();
  const auto range_of = [&](sym::ExprPtr s) { return env.range(s); };
  for (size_t o = 0; o < t.size(); ++o) {
    for (size_t d = 0; d < t[o].sizes.size(); ++d) {
      if (t[o].sizes[d] == f[o].sizes[d]) continue;
      const sym::Range a = sym::bound(t[o].sizes[d], range_of);
      const sym::Range b = sym::bound(f[o].sizes[d], range_of);
      const sym::ExprPtr u = env.create_unbacked(
          {std::min(a.lo, b.lo), std::max(a.hi, b.hi)},
          "size " + std::to_string(d) + " of cond's output " + std::to_string(o) + at_user_line());
      specs[o].sizes[d] = u;
      bindings.push_back({u, static_cast<int>(o), static_cast<int>(d)});
    }
    specs[o] = ir::TensorSpec::contiguous(specs[o].dtype, specs[o].sizes);
  }
  std::vector<ir::Argument> args = {
      std::move(pred),
      ir::SubgraphRef{tracer.subgraph_name("true_graph"), branches[0].graph},
      ir::SubgraphRef{tracer.subgraph_name("false_graph"), branches[1].graph},
      refs(tracer, concat(operands, closures))};
  return tracer.add_node(find_op("higher_order::cond"), std::move(args), std::move(specs),
                         std::move(bindings));
}

}  // namespace

std::vector<Tensor> cond(const Tensor& pred, BranchFn true_fn, BranchFn false_fn,
                         std::vector<Tensor> operands) {
  Tracer* tracer = active_tracer();
  if (tracer == nullptr) {
    return call_tensors(find_op("higher_order::cond"),
                        {pred, Value(GraphFn(std::move(true_fn))),
                         Value(GraphFn(std::move(false_fn))), std::move(operands)});
  }
  XPORT_CHECK(pred.defined(), InvalidSpec, "cond: the predicate is an undefined tensor",
              at_user_line());
  bool one = pred.dtype() == DType::Bool;
  for (const SymInt& s : pred.sizes()) one = one && s.maybe_int() == std::optional<int64_t>(1);
  XPORT_CHECK(one, InvalidSpec, "cond: the predicate must be a bool tensor with one element, got ",
              Value(pred).str(), at_user_line(), "; compare to get one (x.sum() > 0)");
  return traced_cond(*tracer, tracer->value_of(pred), true_fn, false_fn, operands);
}

std::vector<Tensor> cond(const SymBool& pred, BranchFn true_fn, BranchFn false_fn,
                         std::vector<Tensor> operands) {
  // A known predicate (a plain bool, or one the shapes decide) takes its branch, as PyTorch's
  // cond does for a Python bool.
  if (const auto known = pred.maybe_bool()) return (*known ? true_fn : false_fn)(operands);
  Tracer* tracer = active_tracer();
  if (tracer == nullptr) return (pred.guard_bool() ? true_fn : false_fn)(operands);
  return traced_cond(*tracer, tracer->env()->simplify(capture::expr_of(pred)), true_fn,
                     false_fn, operands);
}

std::vector<Tensor> map(MapFn fn, const Tensor& xs, std::vector<Tensor> args) {
  const size_t num_args = args.size();
  GraphFn body = [fn = std::move(fn), num_args](const std::vector<Tensor>& in) {
    return fn(in[0], std::vector<Tensor>(in.begin() + 1, in.begin() + 1 + num_args));
  };
  Tracer* tracer = active_tracer();
  if (tracer == nullptr) {
    return call_tensors(find_op("higher_order::map_impl"),
                        {Value(std::move(body)), std::vector<Tensor>{xs}, std::move(args)});
  }
  XPORT_CHECK(xs.defined() && xs.dim() >= 1, InvalidSpec,
              "map: xs must be a tensor with at least one dim to map over, got ",
              xs.defined() ? Value(xs).str() : "an undefined tensor", at_user_line());
  // map's kernel refuses an empty leading dim (it has no row to learn the results' shapes from;
  // PyTorch's refuses too): a guard, so that a spec allowing 0 rows is refused at export, naming
  // the Dim, rather than left to a refusal at run time that dead-code elimination may remove.
  XPORT_CHECK(static_cast<bool>(xs.size(0) > 0), InvalidInput,
              "map: xs has no elements along its leading dim; map needs at least one",
              at_user_line());
  std::vector<Tensor> closures;
  const std::vector<Traced> traced =
      trace_functions(*tracer, {body}, concat({xs}, args), 1, closures);
  std::vector<ir::TensorSpec> specs;
  const sym::ExprPtr length = tracer->spec_of(xs.meta()).sizes[0];
  for (const ir::TensorSpec& r : traced[0].results) {
    std::vector<sym::ExprPtr> sizes = {length};
    sizes.insert(sizes.end(), r.sizes.begin(), r.sizes.end());
    specs.push_back(ir::TensorSpec::contiguous(r.dtype, std::move(sizes)));
  }
  std::vector<ir::Argument> node_args = {
      ir::SubgraphRef{tracer->subgraph_name("body_graph"), traced[0].graph},
      refs(*tracer, {xs}), refs(*tracer, concat(args, closures))};
  return tracer->add_node(find_op("higher_order::map_impl"), std::move(node_args), specs);
}

std::vector<Tensor> while_loop(LoopCondFn cond_fn, LoopBodyFn body_fn,
                               std::vector<Tensor> carried) {
  const size_t n = carried.size();
  auto carried_part = [n](const std::vector<Tensor>& in) {
    return std::vector<Tensor>(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n));
  };
  GraphFn cond_graph = [cond_fn = std::move(cond_fn), carried_part](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{cond_fn(carried_part(in))};
  };
  GraphFn body_graph = [body_fn = std::move(body_fn), carried_part](const std::vector<Tensor>& in) {
    return body_fn(carried_part(in));
  };
  Tracer* tracer = active_tracer();
  if (tracer == nullptr) {
    return call_tensors(find_op("higher_order::while_loop"),
                        {Value(std::move(cond_graph)), Value(std::move(body_graph)),
                         std::move(carried), std::vector<Tensor>{}});
  }
  std::vector<Tensor> closures;
  const std::vector<Traced> traced =
      trace_functions(*tracer, {cond_graph, body_graph}, carried, 0, closures);
  const std::vector<ir::TensorSpec>& c = traced[0].results;
  bool predicate = c.size() == 1 && c[0].dtype == DType::Bool;
  for (size_t d = 0; predicate && d < c[0].sizes.size(); ++d) {
    predicate = sym::as_int(c[0].sizes[d]) == std::optional<int64_t>(1);
  }
  XPORT_CHECK(predicate, InvalidSpec,
              "while_loop: cond_fn must return one bool tensor with one element, got ",
              specs_str(c), at_user_line());
  std::vector<ir::TensorSpec> specs;
  for (const Tensor& t : carried) {
    const ir::TensorSpec s = tracer->spec_of(t.meta());
    specs.push_back(ir::TensorSpec::contiguous(s.dtype, s.sizes));
  }
  const std::vector<ir::TensorSpec>& b = traced[1].results;
  bool matching = b.size() == specs.size();
  for (size_t i = 0; matching && i < b.size(); ++i) matching = same(b[i], specs[i]);
  XPORT_CHECK_CASE(matching, InvalidSpec, "while_loop_body_mismatch", "while_loop: body_fn returns ",
                   specs_str(b), " for carried values ", specs_str(specs), at_user_line(),
                   "; body_fn must return one tensor per carried value, with its dtype and sizes");
  std::vector<ir::Argument> node_args = {
      ir::SubgraphRef{tracer->subgraph_name("while_loop_cond_graph"), traced[0].graph},
      ir::SubgraphRef{tracer->subgraph_name("while_loop_body_graph"), traced[1].graph},
      refs(*tracer, carried), refs(*tracer, closures)};
  return tracer->add_node(find_op("higher_order::while_loop"), std::move(node_args), specs);
}

}  // namespace xport
