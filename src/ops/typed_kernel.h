#pragma once
// An op's out-variant kernel as a named C++ function whose parameters follow the op's schema:
// each argument in order, then one `const Tensor&` per result (`relu_out(const Tensor& self,
// const Tensor& out)`). The KernelFn the registry calls is made from the function itself, and
// OpDef::kernel_symbol records its name and parameter types, so a code generator emits a call
// of the very function eager execution and the runtime run.

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "xport/op_registry.h"

namespace xport::ops {

/// How one parameter type is taken from the bound arguments (index < the schema's argument
/// count) or from the outputs (the rest), and how it is spelled in C++ and in a schema.
template <class T>
struct KernelParam;

template <>
struct KernelParam<const Tensor&> {
  static constexpr const char* cpp = "const xport::Tensor&";
  static constexpr BaseType schema = BaseType::Tensor;
  static const Tensor& get(const OpArgs& a, const std::vector<Tensor>& outs, size_t i) {
    return i < a.size() ? a.tensor(i) : outs[i - a.size()];
  }
};
template <>
struct KernelParam<const Scalar&> {
  static constexpr const char* cpp = "const xport::Scalar&";
  static constexpr BaseType schema = BaseType::Scalar;
  static Scalar get(const OpArgs& a, const std::vector<Tensor>&, size_t i) { return a.scalar(i); }
};
template <>
struct KernelParam<int64_t> {
  static constexpr const char* cpp = "int64_t";
  static constexpr BaseType schema = BaseType::Int;
  static int64_t get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.integer(i);
  }
};
template <>
struct KernelParam<double> {
  static constexpr const char* cpp = "double";
  static constexpr BaseType schema = BaseType::Float;
  static double get(const OpArgs& a, const std::vector<Tensor>&, size_t i) { return a.real(i); }
};
template <>
struct KernelParam<bool> {
  static constexpr const char* cpp = "bool";
  static constexpr BaseType schema = BaseType::Bool;
  static bool get(const OpArgs& a, const std::vector<Tensor>&, size_t i) { return a.boolean(i); }
};

/// The KernelFn and symbol of `Fn`, a `void(P...)` function named `name`.
struct TypedKernel {
  KernelFn fn;
  KernelSymbol symbol;
};

namespace detail {

template <class F>
struct FunctionParams;
template <class... P>
struct FunctionParams<void (*)(P...)> {
  using Tuple = std::tuple<P...>;
};

template <auto Fn, class... P, size_t... I>
void call_typed(const OpArgs& a, const std::vector<Tensor>& outs, std::tuple<P...>*,
                std::index_sequence<I...>) {
  Fn(KernelParam<P>::get(a, outs, I)...);
}

template <class... P>
KernelSymbol symbol_of(std::string name, std::tuple<P...>*) {
  return KernelSymbol{std::move(name), {KernelParam<P>::cpp...}, {KernelParam<P>::schema...}};
}

}  // namespace detail

template <auto Fn>
TypedKernel typed_kernel(std::string name) {
  using Tuple = typename detail::FunctionParams<decltype(Fn)>::Tuple;
  return TypedKernel{
      [](const OpArgs& a, std::vector<Tensor>& outs) {
        detail::call_typed<Fn>(a, outs, static_cast<Tuple*>(nullptr),
                               std::make_index_sequence<std::tuple_size_v<Tuple>>{});
      },
      detail::symbol_of(std::move(name), static_cast<Tuple*>(nullptr))};
}

}  // namespace xport::ops

/// The typed kernel of a function in xport::kernels (`XPORT_KERNEL(cpu::relu_out)`), its name
/// spelled once.
#define XPORT_KERNEL(fn) ::xport::ops::typed_kernel<&::xport::kernels::fn>("xport::kernels::" #fn)
