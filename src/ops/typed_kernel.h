#pragma once
// An op's out-variant kernel as a named C++ function whose parameters follow the op's schema:
// each argument in order, then one `const Tensor&` per result (`relu_out(const Tensor& self,
// const Tensor& out)`). The KernelFn the registry calls is made from the function itself, and
// OpDef::kernel_symbol records its name and parameter types, so a code generator emits a call
// of the very function eager execution and the runtime run.

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "xport/op_registry.h"

namespace xport::ops {

/// How one parameter type is taken from the bound arguments (index < the schema's argument
/// count) or from the outputs (the rest), how it is spelled in C++, and which schema type it
/// takes (`kind`). Symbolic integers are concrete by the time a kernel runs; layouts, devices and
/// memory formats arrive as their names.
template <class T>
struct KernelParam;

namespace detail {
inline ArgType kind(BaseType base, bool optional = false, bool list = false,
                    bool element_optional = false) {
  return ArgType{.base = base,
                 .optional = optional,
                 .list = list,
                 .fixed_size = 0,
                 .element_optional = element_optional};
}
}  // namespace detail

template <>
struct KernelParam<const Tensor&> {
  static constexpr const char* cpp = "const xport::Tensor&";
  static ArgType kind() { return detail::kind(BaseType::Tensor); }
  static const Tensor& get(const OpArgs& a, const std::vector<Tensor>& outs, size_t i) {
    return i < a.size() ? a.tensor(i) : outs[i - a.size()];
  }
};
template <>
struct KernelParam<const std::optional<Tensor>&> {
  static constexpr const char* cpp = "const std::optional<xport::Tensor>&";
  static ArgType kind() { return detail::kind(BaseType::Tensor, true); }
  static std::optional<Tensor> get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    if (a[i].is_none()) return std::nullopt;
    return a.tensor(i);
  }
};
template <>
struct KernelParam<const std::vector<Tensor>&> {
  static constexpr const char* cpp = "const std::vector<xport::Tensor>&";
  static ArgType kind() { return detail::kind(BaseType::Tensor, false, true); }
  static const std::vector<Tensor>& get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.tensors(i);
  }
};
/// `Tensor?[]` (index.Tensor's indices).
template <>
struct KernelParam<const std::vector<std::optional<Tensor>>&> {
  static constexpr const char* cpp = "const std::vector<std::optional<xport::Tensor>>&";
  static ArgType kind() { return detail::kind(BaseType::Tensor, false, true, true); }
  static std::vector<std::optional<Tensor>> get(const OpArgs& a, const std::vector<Tensor>&,
                                                size_t i) {
    std::vector<std::optional<Tensor>> out;
    for (const Tensor& t : a.tensors(i)) out.push_back(t.defined() ? std::optional(t) : std::nullopt);
    return out;
  }
};
template <>
struct KernelParam<const Scalar&> {
  static constexpr const char* cpp = "const xport::Scalar&";
  static ArgType kind() { return detail::kind(BaseType::Scalar); }
  static Scalar get(const OpArgs& a, const std::vector<Tensor>&, size_t i) { return a.scalar(i); }
};
template <>
struct KernelParam<const std::optional<Scalar>&> {
  static constexpr const char* cpp = "const std::optional<xport::Scalar>&";
  static ArgType kind() { return detail::kind(BaseType::Scalar, true); }
  static std::optional<Scalar> get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.optional_scalar(i);
  }
};
template <>
struct KernelParam<int64_t> {
  static constexpr const char* cpp = "int64_t";
  static ArgType kind() { return detail::kind(BaseType::Int); }
  static int64_t get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.integer(i);
  }
};
template <>
struct KernelParam<std::optional<int64_t>> {
  static constexpr const char* cpp = "std::optional<int64_t>";
  static ArgType kind() { return detail::kind(BaseType::Int, true); }
  static std::optional<int64_t> get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.optional_int(i);
  }
};
template <>
struct KernelParam<const std::vector<int64_t>&> {
  static constexpr const char* cpp = "const std::vector<int64_t>&";
  static ArgType kind() { return detail::kind(BaseType::Int, false, true); }
  static std::vector<int64_t> get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.ints(i);
  }
};
template <>
struct KernelParam<const std::optional<std::vector<int64_t>>&> {
  static constexpr const char* cpp = "const std::optional<std::vector<int64_t>>&";
  static ArgType kind() { return detail::kind(BaseType::Int, true, true); }
  static std::optional<std::vector<int64_t>> get(const OpArgs& a, const std::vector<Tensor>&,
                                                 size_t i) {
    return a.optional_ints(i);
  }
};
template <>
struct KernelParam<double> {
  static constexpr const char* cpp = "double";
  static ArgType kind() { return detail::kind(BaseType::Float); }
  static double get(const OpArgs& a, const std::vector<Tensor>&, size_t i) { return a.real(i); }
};
template <>
struct KernelParam<std::optional<double>> {
  static constexpr const char* cpp = "std::optional<double>";
  static ArgType kind() { return detail::kind(BaseType::Float, true); }
  static std::optional<double> get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.optional_real(i);
  }
};
template <>
struct KernelParam<bool> {
  static constexpr const char* cpp = "bool";
  static ArgType kind() { return detail::kind(BaseType::Bool); }
  static bool get(const OpArgs& a, const std::vector<Tensor>&, size_t i) { return a.boolean(i); }
};
template <>
struct KernelParam<std::optional<bool>> {
  static constexpr const char* cpp = "std::optional<bool>";
  static ArgType kind() { return detail::kind(BaseType::Bool, true); }
  static std::optional<bool> get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.optional_bool(i);
  }
};
template <>
struct KernelParam<DType> {
  static constexpr const char* cpp = "xport::DType";
  static ArgType kind() { return detail::kind(BaseType::ScalarType); }
  static DType get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a[i].to_dtype();
  }
};
template <>
struct KernelParam<std::optional<DType>> {
  static constexpr const char* cpp = "std::optional<xport::DType>";
  static ArgType kind() { return detail::kind(BaseType::ScalarType, true); }
  static std::optional<DType> get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.optional_dtype(i);
  }
};
/// `str`, and a required Layout, Device or MemoryFormat (by name).
template <>
struct KernelParam<const std::string&> {
  static constexpr const char* cpp = "const std::string&";
  static ArgType kind() { return detail::kind(BaseType::Str); }
  static const std::string& get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.str(i);
  }
};
/// `str?`, and an optional Layout, Device or MemoryFormat (by name).
template <>
struct KernelParam<const std::optional<std::string>&> {
  static constexpr const char* cpp = "const std::optional<std::string>&";
  static ArgType kind() { return detail::kind(BaseType::Str, true); }
  static std::optional<std::string> get(const OpArgs& a, const std::vector<Tensor>&, size_t i) {
    return a.optional_str(i);
  }
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
  return KernelSymbol{std::move(name), {KernelParam<P>::cpp...}, {KernelParam<P>::kind()...}};
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
/// The typed kernel of an ops-layer function (`XPORT_OP_KERNEL(sum_dim_out)`): one that adapts
/// the schema's arguments (dims to wrap, defaults to settle) before calling xport::kernels.
#define XPORT_OP_KERNEL(fn) ::xport::ops::typed_kernel<&::xport::ops::fn>("xport::ops::" #fn)
