#pragma once
// Converts a graph argument into the Value an op's kernel takes, as the schema type says; shared
// by the interpreter and the runtime's planner so both bind arguments the same way.

#include <limits>

#include "xport/ir/ir.h"
#include "xport/tensor/value.h"

namespace xport::ir {

/// For callers that never meet a higher-order op's node (the runtime plans none).
struct NoSubgraphs {
  GraphFn operator()(const SubgraphRef& g) const {
    XPORT_FAIL(Internal, "subgraph ", g.name, " reached code that does not run subgraphs");
  }
};

/// A number the graph computes (item_float()'s value, `_operator.mul`'s result): its one-element
/// tensor's value. A tensor without data (a fake, while planning) gives a stand-in of its kind
/// (NaN or 0): meta functions read a Scalar's kind, never its value.
inline Value scalar_value(const Tensor& t) {
  if (!t.is_fake()) return Value(t.item_scalar());
  if (is_floating(t.dtype())) return Value(std::numeric_limits<double>::quiet_NaN());
  if (t.dtype() == DType::Bool) return Value(false);
  return Value(int64_t{0});
}

/// `tensor_of(const ValueRef&)` gives a value's tensor; `evaluate(sym::ExprPtr)` an expression's
/// integer under the current symbols (it throws when it cannot); `graph_of(const SubgraphRef&)`
/// the GraphFn that runs a subgraph.
template <class TensorOf, class Evaluate, class GraphOf = NoSubgraphs>
Value argument_value(const Argument& arg, const ArgType& type, const TensorOf& tensor_of,
                     const Evaluate& evaluate, const GraphOf& graph_of = {}) {
  if (arg.is_none()) return Value();
  if (const auto* g = std::get_if<SubgraphRef>(&arg.value)) return Value(graph_of(*g));
  if (const auto* ref = std::get_if<ValueRef>(&arg.value)) {
    if (type.base == BaseType::Scalar || type.base == BaseType::Float)
      return scalar_value(tensor_of(*ref));
    return tensor_of(*ref);
  }
  if (const auto* e = std::get_if<sym::ExprPtr>(&arg.value)) return evaluate(*e);
  if (const auto* d = std::get_if<double>(&arg.value)) return *d;
  if (const auto* b = std::get_if<bool>(&arg.value)) return *b;
  if (const auto* s = std::get_if<std::string>(&arg.value)) return *s;
  if (const auto* t = std::get_if<DType>(&arg.value)) return *t;
  const auto& list = std::get<std::vector<Argument>>(arg.value);
  switch (type.base) {
    case BaseType::Tensor: {
      std::vector<Tensor> tensors;
      for (const Argument& a : list) {
        const auto* ref = std::get_if<ValueRef>(&a.value);
        tensors.push_back(ref ? tensor_of(*ref) : Tensor());  // None in a `Tensor?[]`
      }
      return tensors;
    }
    case BaseType::Float: {
      std::vector<double> reals;
      for (const Argument& a : list) {
        const auto* d = std::get_if<double>(&a.value);
        // (An integer's value: evaluate may give an int64_t or a SymInt.)
        reals.push_back(d ? *d
                          : static_cast<double>(static_cast<int64_t>(
                                evaluate(std::get<sym::ExprPtr>(a.value)))));
      }
      return reals;
    }
    case BaseType::Bool: {
      std::vector<bool> bools;
      for (const Argument& a : list) {
        const auto* b = std::get_if<bool>(&a.value);
        XPORT_CHECK(b != nullptr, InvalidArchive, "a bool[] argument holds ", a.str());
        bools.push_back(*b);
      }
      return bools;
    }
    default: {
      std::vector<SymInt> ints;
      for (const Argument& a : list) ints.emplace_back(evaluate(std::get<sym::ExprPtr>(a.value)));
      return ints;
    }
  }
}

/// The other way: the graph argument that records `v`, an op's argument `schema_arg` (named in
/// the error for a kind no graph holds). `ref_of(const Tensor&)` gives a tensor's value in the
/// graph, `expr_of(const SymInt&)` an integer's expression, `float_of(const SymFloat&)` a float's
/// argument (a number, or the value that computes it). Shared by the tracer and the passes that
/// trace a decomposition, so both record calls alike.
template <class RefOf, class ExprOf, class FloatOf>
Argument argument_of(const Value& v, const xport::Argument& schema_arg, const RefOf& ref_of,
                     const ExprOf& expr_of, const FloatOf& float_of) {
  if (v.is_none()) return {};
  if (v.is_tensor()) {
    if (!v.to_tensor().defined()) return {};
    return ref_of(v.to_tensor());
  }
  if (v.is_int()) return expr_of(v.to_sym_int());
  if (v.is_double()) return float_of(v.to_sym_float());
  if (v.is_bool()) return v.to_bool();
  if (v.is_string()) return v.to_string_value();
  if (v.is_dtype()) return v.to_dtype();
  std::vector<Argument> list;
  if (v.is_int_list()) {
    for (const SymInt& s : v.to_sym_int_list()) list.emplace_back(expr_of(s));
  } else if (v.is_double_list()) {
    for (double d : v.to_double_list()) list.emplace_back(d);
  } else if (v.is_bool_list()) {
    for (bool b : v.to_bool_list()) list.emplace_back(b);
  } else if (v.is_list()) {
    for (const Tensor& t : v.to_tensor_list()) {
      list.push_back(t.defined() ? Argument(ref_of(t)) : Argument());
    }
  } else {
    XPORT_FAIL(Internal, "cannot record argument '", schema_arg.name, "' of type ", v.type_name(),
               " in a graph");
  }
  return list;
}

}  // namespace xport::ir
