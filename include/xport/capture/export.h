#pragma once
/// \file export_program: trace a C++ model once on example inputs whose dims may be symbolic,
/// and return the graph plus the exact shape contract under which it is valid.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "xport/nn/module.h"
#include "xport/program/exported_program.h"
#include "xport/tensor/value.h"

namespace xport {

/// A dynamic dim: Dim("batch") or Dim("batch", min, max). The same Dim object on two input dims
/// declares them equal; `2 * d`, `d + 1`, `d - 1` are derived dims. Dynamic dims are at least 2
/// (sizes 0 and 1 change broadcasting, so they are never traced symbolically).
class Dim {
 public:
  explicit Dim(std::string name, int64_t min = 2, int64_t max = sym::Range::kPosInf);

  const std::string& name() const;
  int64_t min() const;
  int64_t max() const;
  /// A derived dim is coefficient * root + offset.
  bool is_derived() const { return coefficient_ != 1 || offset_ != 0; }
  int64_t coefficient() const { return coefficient_; }
  int64_t offset() const { return offset_; }
  /// Identifies the root Dim: equal for copies of one Dim and dims derived from it.
  const void* root_id() const { return root_.get(); }
  /// `Dim("batch", 2, 16)`, `2 * seq`.
  std::string str() const;

  friend Dim operator*(int64_t k, const Dim& d);
  friend Dim operator*(const Dim& d, int64_t k) { return k * d; }
  friend Dim operator+(const Dim& d, int64_t k);
  friend Dim operator-(const Dim& d, int64_t k) { return d + (-k); }

 private:
  struct Root;
  std::shared_ptr<const Root> root_;
  int64_t coefficient_ = 1;
  int64_t offset_ = 0;
};

using DimSpec = std::map<int64_t, Dim>;  ///< dim index -> Dim, for one input tensor

struct ExportOptions {
  /// One entry per positional input (an empty map for an input with no dynamic dim); empty
  /// means all static. Tensor-list inputs and plain values take an empty map: list elements
  /// are static for now.
  std::vector<DimSpec> dynamic_shapes = {};
  /// Names of the user inputs in the graph and in error messages; default `x` for a single
  /// input, else `x0`, `x1`, ...
  std::vector<std::string> input_names = {};
};

/// The traced function: user inputs in, outputs out (a Tensor, a list or a tuple of Tensors is
/// flattened into this list).
using TracedFn = std::function<std::vector<Tensor>(const std::vector<Value>&)>;

ExportedProgram export_program(nn::Module& module, const TracedFn& fn,
                               std::vector<Value> example_inputs, ExportOptions options = {});
ExportedProgram export_program(const TracedFn& fn, std::vector<Value> example_inputs,
                               ExportOptions options = {});

namespace detail {

template <class T>
struct callable_args : callable_args<decltype(&T::operator())> {};
template <class C, class R, class... A>
struct callable_args<R (C::*)(A...) const> {
  using type = std::tuple<std::decay_t<A>...>;
};
template <class C, class R, class... A>
struct callable_args<R (C::*)(A...)> {
  using type = std::tuple<std::decay_t<A>...>;
};
template <class R, class... A>
struct callable_args<R (*)(A...)> {
  using type = std::tuple<std::decay_t<A>...>;
};

template <class T>
T value_as(const Value& v) {
  if constexpr (std::is_same_v<T, Tensor>) {
    return v.to_tensor();
  } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
    return v.to_tensor_list();
  } else if constexpr (std::is_same_v<T, Value>) {
    return v;
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.to_bool();
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v.to_int());
  } else if constexpr (std::is_same_v<T, SymInt>) {
    return v.to_sym_int();
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v.to_double());
  } else {
    static_assert(sizeof(T) == 0, "export_program: unsupported input type");
  }
}

inline void flatten_outputs(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
/// A size returned by the program (`x.size(1) + 1`): an int64 0-dim tensor (aten::scalar_tensor),
/// computed from the symbols when the exported program runs.
Tensor scalar_output(const SymInt& v);
inline void flatten_outputs(const SymInt& v, std::vector<Tensor>& out) {
  out.push_back(scalar_output(v));
}
template <class... T>
void flatten_outputs(const std::tuple<T...>& t, std::vector<Tensor>& out);
template <class A, class B>
void flatten_outputs(const std::pair<A, B>& p, std::vector<Tensor>& out);
inline void flatten_outputs(const std::vector<Tensor>& ts, std::vector<Tensor>& out) {
  out.insert(out.end(), ts.begin(), ts.end());
}
template <class... T>
void flatten_outputs(const std::tuple<T...>& t, std::vector<Tensor>& out) {
  std::apply([&](const auto&... e) { (flatten_outputs(e, out), ...); }, t);
}
template <class A, class B>
void flatten_outputs(const std::pair<A, B>& p, std::vector<Tensor>& out) {
  flatten_outputs(p.first, out);
  flatten_outputs(p.second, out);
}

/// Whether F is already a TracedFn in all but name (Values in, a vector of Tensors out).
template <class F>
inline constexpr bool is_traced_fn_v =
    std::is_convertible_v<F, TracedFn> && std::is_invocable_v<F, const std::vector<Value>&>;

/// Adapts a callable taking Tensors / plain values and returning a Tensor, a vector or a tuple
/// of them to a TracedFn.
template <class F>
TracedFn adapt(F fn) {
  if constexpr (is_traced_fn_v<F>) {
    return TracedFn(std::move(fn));
  } else {
    using Args = typename callable_args<F>::type;
    return [fn = std::move(fn)](const std::vector<Value>& inputs) {
      constexpr size_t n = std::tuple_size_v<Args>;
      XPORT_CHECK(inputs.size() == n, InvalidSpec, "export_program: the function takes ", n,
                  " inputs, but ", inputs.size(), " example inputs were given");
      auto call = [&]<size_t... I>(std::index_sequence<I...>) {
        return fn(value_as<std::tuple_element_t<I, Args>>(inputs[I])...);
      };
      std::vector<Tensor> out;
      flatten_outputs(call(std::make_index_sequence<n>{}), out);
      return out;
    };
  }
}

template <class F, class Args>
struct result_of_call;
template <class F, class... A>
struct result_of_call<F, std::tuple<A...>> {
  using type = std::decay_t<std::invoke_result_t<const F&, A...>>;
};

/// How a callable adapted above returns its outputs: one Tensor (or one size) alone, else a
/// sequence (a TracedFn's vector included).
template <class F>
constexpr GraphSignature::Returns returns_of() {
  if constexpr (is_traced_fn_v<F>) {
    return GraphSignature::Returns::Sequence;
  } else {
    using R = typename result_of_call<F, typename callable_args<F>::type>::type;
    return std::is_same_v<R, Tensor> || std::is_same_v<R, SymInt>
               ? GraphSignature::Returns::Single
               : GraphSignature::Returns::Sequence;
  }
}

/// export_program, recording how the function returned its outputs (GraphSignature::returns).
ExportedProgram export_adapted(nn::Module* module, const TracedFn& fn,
                               std::vector<Value> example_inputs, ExportOptions options,
                               GraphSignature::Returns returns);

}  // namespace detail

/// export_program with any callable: `[&](const Tensor& x) { return model->forward(x); }`.
template <class F, std::enable_if_t<!std::is_same_v<std::decay_t<F>, TracedFn>, int> = 0>
ExportedProgram export_program(nn::Module& module, F fn, std::vector<Value> example_inputs,
                               ExportOptions options = {}) {
  constexpr GraphSignature::Returns returns = detail::returns_of<F>();
  return detail::export_adapted(&module, detail::adapt(std::move(fn)), std::move(example_inputs),
                                std::move(options), returns);
}
template <class F, std::enable_if_t<!std::is_same_v<std::decay_t<F>, TracedFn>, int> = 0>
ExportedProgram export_program(F fn, std::vector<Value> example_inputs,
                               ExportOptions options = {}) {
  constexpr GraphSignature::Returns returns = detail::returns_of<F>();
  return detail::export_adapted(nullptr, detail::adapt(std::move(fn)), std::move(example_inputs),
                                std::move(options), returns);
}

}  // namespace xport
