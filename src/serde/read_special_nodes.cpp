// The nodes of PyTorch's graphs that are not op calls in xport's: metadata assertions, item()
// as a symbol, comparisons of sizes, runtime assertions, grad-mode wrappers.

#include <map>
#include <utility>

#include "serde/program_reader.h"
#include "serde/pt2_format.h"
#include "xport/core/error.h"

namespace xport::serde {

// aten._assert_tensor_metadata(Tensor a, SymInt[]? size, SymInt[]? stride, ScalarType? dtype,
// *, Device? device, Layout? layout): a's dtype and sizes must be the recorded ones (device and
// layout are checked as for any argument: CPU and strided).
void GraphReader::check_metadata_assertion(const Field& inputs) {
  const ir::TensorSpec* spec = nullptr;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs.at(i)["name"].to_string() != "a") continue;
    auto [kind, v] = inputs.at(i)["arg"].to_union();
    if (kind != "as_tensor") v.fail("expected the asserted tensor (as_tensor), found " + kind);
    value_ref(v);  // defined before this node
    const auto found = symbols_.specs.find(v["name"].to_string());
    if (found == symbols_.specs.end()) v.fail("no tensor_values entry for the asserted tensor");
    spec = &found->second;
  }
  if (!spec) inputs.fail("_assert_tensor_metadata without its tensor argument 'a'");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& name = inputs.at(i)["name"].to_string();
    const Field arg = inputs.at(i)["arg"];
    const ir::Argument value = argument(arg);
    if (value.is_none() || name == "a" || name == "stride") continue;
    if (name == "dtype") {
      const DType* dtype = std::get_if<DType>(&value.value);
      if (!dtype) arg.fail("expected a dtype (as_scalar_type)");
      if (*dtype != spec->dtype) {
        arg.fail(std::string("asserts dtype ") + dtype_name(*dtype) +
                 " for a tensor the archive records as " + spec->str());
      }
    }
    if (name == "size") {
      const auto* sizes = std::get_if<std::vector<ir::Argument>>(&value.value);
      if (!sizes) arg.fail("expected a list of sizes");
      bool same = sizes->size() == spec->sizes.size();
      for (size_t d = 0; same && d < sizes->size(); ++d) {
        const auto* size = std::get_if<sym::ExprPtr>(&(*sizes)[d].value);
        same = size && *size == spec->sizes[d];
      }
      if (!same) arg.fail("asserts sizes the archive does not record for " + spec->str());
    }
  }
}

// aten.item (or _local_scalar_dense) with an as_sym_int output: a tensor's value as an
// unbacked symbol, whose expression sym_int_values gives.
bool GraphReader::read_item(const Field& n) {
  const std::string& target = n["target"].to_string();
  if (target != "torch.ops.aten.item.default" &&
      target != "torch.ops.aten._local_scalar_dense.default")
    return false;
  const Field outputs = n["outputs"];
  if (outputs.size() != 1) return false;
  auto [kind, v] = outputs.at(0).to_union();
  if (kind == "as_sym_float") return read_float_item(n, v["as_name"]);
  if (kind != "as_sym_int") return false;
  const Field name = v["as_name"];
  const sym::ExprPtr u = sym_int_argument(v);
  if (u->kind() != sym::ExprKind::Symbol || input_symbols.count(u) ||
      !bound_symbols_.insert(u).second)
    name.fail("'" + name.to_string() + "' must be a new unbacked symbol, found " + sym::str(u));
  graph.set_unbacked_bindings(add_item(n, name, /*floating=*/false), {{u, 0, -1}});
  return true;
}

// aten.item with an as_sym_float output: a float tensor's value, which later nodes take as a
// Scalar (as_sym_float). It keeps the tensor's dtype, as item_float() records it.
bool GraphReader::read_float_item(const Field& n, const Field& name) {
  define(name, add_item(n, name, /*floating=*/true)->out());
  return true;
}

// The aten::item node `name` of the one tensor the node `n` reads (a floating one for a
// SymFloat output), a one-element value of its dtype.
ir::Node* GraphReader::add_item(const Field& n, const Field& name, bool floating) {
  const Field inputs = n["inputs"];
  if (inputs.size() != 1) inputs.fail("aten.item takes one tensor");
  auto [k, t] = inputs.at(0)["arg"].to_union();
  if (k != "as_tensor") t.fail("aten.item takes a tensor, found " + k);
  const ir::ValueRef self = value_ref(t);
  const DType dtype = self.node->outputs()[static_cast<size_t>(self.index)].dtype;
  if (floating && !is_floating(dtype))
    t.fail(std::string("an as_sym_float item of a ") + dtype_name(dtype) + " tensor");
  try {
    return graph.add_named_call(scope_ + name.to_string(), find_op("aten::item"), {self},
                                 {ir::TensorSpec::contiguous(dtype, {})},
                                 n.optional("metadata") ? node_meta(n["metadata"])
                                                        : ir::NodeMeta{});
  } catch (const Error& e) {
    n.fail(e.what());
  }
}

sym::ExprPtr GraphReader::int_operand(const Field& arg) {
  auto [kind, v] = arg.to_union();
  if (kind == "as_int") return sym::integer(v.to_int());
  if (kind != "as_sym_int") v.fail("expected an as_int or as_sym_int operand, found " + kind);
  return sym_int_argument(v);
}

// _operator.ge(a, b) and the other comparisons of SymInts, with which PyTorch's graphs compute
// the conditions of runtime assertions: kept as expressions for _assert_scalar below.
bool GraphReader::read_sym_relation(const Field& n) {
  using Relation = sym::ExprPtr (*)(sym::ExprPtr, sym::ExprPtr);
  static const std::map<std::string, Relation> kRelations = {
      {"_operator.eq", sym::eq}, {"_operator.ne", sym::ne}, {"_operator.lt", sym::lt},
      {"_operator.le", sym::le}, {"_operator.gt", sym::gt}, {"_operator.ge", sym::ge}};
  const auto it = kRelations.find(n["target"].to_string());
  if (it == kRelations.end()) return false;
  const Field inputs = n["inputs"];
  const Field outputs = n["outputs"];
  if (inputs.size() != 2 || outputs.size() != 1)
    n.fail(it->first + " takes two SymInts and returns one SymBool");
  const sym::ExprPtr cond =
      it->second(int_operand(inputs.at(0)["arg"]), int_operand(inputs.at(1)["arg"]));
  auto [kind, v] = outputs.at(0).to_union();
  if (kind != "as_sym_bool") v.fail("expected an as_sym_bool output, found " + kind);
  const Field name = v["as_name"];
  if (!sym_bools_.emplace(name.to_string(), cond).second)
    name.fail("value '" + name.to_string() + "' is defined twice");
  return true;
}

// aten._assert_scalar(cond, msg) is dropped when `cond` is over input dims' symbols and their
// range constraints imply it: run() checks those before any kernel. Other runtime assertions
// are refused (a data-dependent symbol's range is only what the assertions say).
bool GraphReader::read_assert(const Field& n) {
  if (n["target"].to_string() != "torch.ops.aten._assert_scalar.default") return false;
  const Field inputs = n["inputs"];
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs.at(i)["name"].to_string() != "self") continue;
    auto [kind, v] = inputs.at(i)["arg"].to_union();
    sym::ExprPtr cond = nullptr;
    if (kind == "as_bool") {
      cond = sym::boolean(v.to_bool());
    } else if (kind == "as_int") {  // `self` is a Scalar: a constant 1 or 0 is one too
      cond = sym::boolean(v.to_int() != 0);
    } else if (kind == "as_sym_bool") {
      const Field name = v["as_name"];
      auto it = sym_bools_.find(name.to_string());
      if (it == sym_bools_.end())
        name.fail("refers to '" + name.to_string() + "', which no earlier node defines");
      cond = it->second;
    } else {
      v.fail("expected an as_sym_bool condition, found " + kind);
    }
    bool on_inputs = true;
    for (sym::ExprPtr s : sym::free_symbols(cond)) on_inputs = on_inputs && input_symbols.count(s);
    if (!on_inputs) {
      // On a data-dependent (unbacked) symbol: the program checks it when it runs.
      std::string message = "Runtime assertion failed for expression " + sym::str(cond);
      for (size_t j = 0; j < inputs.size(); ++j) {
        if (inputs.at(j)["name"].to_string() == "assert_msg") {
          message = inputs.at(j)["arg"]["as_string"].to_string();
        }
      }
      for (sym::ExprPtr s : sym::free_symbols(cond)) {
        if (!input_symbols.count(s) && !bound_symbols_.count(s))
          v.fail("the runtime assertion " + sym::str(cond) + " is on " + s->name() +
                 ", which no input dim and no earlier node defines");
      }
      try {
        graph.add_call(find_op("aten::_assert_scalar"), {cond, message}, {},
                        n.optional("metadata") ? node_meta(n["metadata"]) : ir::NodeMeta{});
      } catch (const Error& e) {
        n.fail(e.what());
      }
      return true;
    }
    const auto range_of = [&](sym::ExprPtr s) {
      auto r = symbols_.ranges.find(s->name());
      return r == symbols_.ranges.end() ? sym::Range{} : r->second;
    };
    if (sym::decide(cond, range_of) != true) {
      v.fail("the runtime assertion " + sym::str(cond) +
             " does not follow from range_constraints; xport checks the range constraints "
             "only; other runtime assertions are not read yet");
    }
    return true;
  }
  inputs.fail("aten::_assert_scalar without its 'self' argument");
}

// torch.export wraps code that runs under torch.no_grad() (Llama's rotary embedding, Marian's
// positions) in higher_order.wrap_with_set_grad_enabled(enable_grad, subgraph, *args). Without
// autograd the wrapper changes nothing, so its subgraph is read in place: the subgraph's inputs
// name the node's arguments (tensors, and sizes as SymInts), its outputs are the node's.
bool GraphReader::read_grad_mode_wrapper(const Field& n) {
  if (n["target"].to_string() != "torch.ops.higher_order.wrap_with_set_grad_enabled")
    return false;
  const Field inputs = n["inputs"];
  if (inputs.size() < 2) inputs.fail("wrap_with_set_grad_enabled takes a bool and a subgraph");
  auto [kind, sub] = inputs.at(1)["arg"].to_union();
  if (kind != "as_graph") sub.fail("expected the wrapped subgraph (as_graph), found " + kind);
  if (++subgraph_depth_ > kMaxSubgraphDepth)
    sub.fail("subgraphs nest deeper than " + std::to_string(kMaxSubgraphDepth));
  const Field g = sub["graph"];
  const Field params = g["inputs"];
  if (params.size() + 2 != inputs.size()) {
    params.fail(std::to_string(params.size()) + " subgraph inputs for " +
                std::to_string(inputs.size() - 2) + " arguments");
  }
  // The subgraph's names live in a scope of their own, bound to the arguments' values.
  std::map<std::string, ir::ValueRef> scope_values;
  std::map<std::string, sym::ExprPtr> scope_sizes = symbols_.sym_values;
  for (size_t i = 0; i < params.size(); ++i) {
    auto [pk, param] = params.at(i).to_union();
    auto [ak, arg] = inputs.at(i + 2)["arg"].to_union();
    if (pk != ak) param.fail("a subgraph input of kind " + pk + " for an argument of kind " + ak);
    if (pk == "as_tensor") {
      scope_values[param["name"].to_string()] = value_ref(arg);
    } else if (pk == "as_sym_int") {
      auto [nk, name] = param.to_union();
      if (nk != "as_name") name.fail("a subgraph input names its SymInt");
      scope_sizes[name.to_string()] = sym_int_argument(arg);
    } else {
      param.fail("a subgraph input of kind " + pk + "; the wrapped code takes tensors and sizes");
    }
  }
  auto values = std::exchange(values_, std::move(scope_values));
  auto sizes = std::exchange(symbols_.sym_values, std::move(scope_sizes));
  auto specs = std::exchange(symbols_.specs, {});
  const std::string scope = std::exchange(scope_, scope_ + sub["name"].to_string() + "_");
  symbols_.read_sym_values(g["sym_int_values"]);
  symbols_.read_tensor_values(g["tensor_values"]);
  const Field nodes = g["nodes"];
  for (size_t i = 0; i < nodes.size(); ++i) read_node(nodes.at(i));
  std::vector<ir::ValueRef> results;
  const Field returns = g["outputs"];
  for (size_t i = 0; i < returns.size(); ++i) {
    auto [rk, r] = returns.at(i).to_union();
    if (rk != "as_tensor") r.fail("the wrapped subgraph returns tensors, found " + rk);
    results.push_back(value_ref(r));
  }
  values_ = std::move(values);
  symbols_.sym_values = std::move(sizes);
  symbols_.specs = std::move(specs);
  scope_ = scope;
  --subgraph_depth_;
  const Field outputs = n["outputs"];
  if (outputs.size() != results.size()) {
    outputs.fail(std::to_string(outputs.size()) + " outputs for a subgraph that returns " +
                 std::to_string(results.size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto [ok, out] = outputs.at(i).to_union();
    if (ok != "as_tensor") out.fail("expected an as_tensor output, found " + ok);
    define(out["name"], results[i]);
  }
  return true;
}

}  // namespace xport::serde
