#pragma once
// An op's out-variant kernel as a named C++ function whose parameters follow the op's schema:
// each argument in order, then one `const Tensor&` per result (`relu_out(const Tensor& self,
// const Tensor& out)`). The KernelFn the registry calls is made from the function itself, and
// OpDef::kernel.symbol records its name and parameter types, so a code generator emits a call
// of the very function eager execution and the runtime run.

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "xport/ops/op_registry.h"

namespace xport::ops {

/// How one value type is taken from the bound arguments (index < the schema's argument count)
/// or from the outputs (the rest), how it is spelled in C++, and which schema type it takes
/// (`kind`). Symbolic integers are concrete by the time a kernel runs; layouts, devices and
/// memory formats arrive as their names. A parameter is the type by value or by const
/// reference; `std::optional<T>` of any of them is the schema's `T?`.
template <class T>
struct KernelType;

namespace detail {
inline ArgType kind(BaseType base, bool list = false, bool element_optional = false) {
  return ArgType{.base = base,
                 .optional = false,
                 .list = list,
                 .fixed_size = 0,
                 .element_optional = element_optional};
}
}  // namespace detail

#define XPORT_KERNEL_TYPE(T, NAME, KIND, GET)                                                   \
  template <>                                                                                    \
  struct KernelType<T> {                                                                         \
    static std::string name() { return NAME; }                                                  \
    static ArgType kind() { return KIND; }                                                       \
    static decltype(auto) get(const OpArgs& a, [[maybe_unused]] const std::vector<Tensor>& outs, \
                              size_t i) {                                                        \
      return GET;                                                                                \
    }                                                                                            \
  };
// A Tensor parameter after the schema's arguments is a result: the output tensor.
XPORT_KERNEL_TYPE(Tensor, "xport::Tensor", detail::kind(BaseType::Tensor),
                  i < a.size() ? a[i].to_tensor() : outs[i - a.size()])
XPORT_KERNEL_TYPE(std::vector<Tensor>, "std::vector<xport::Tensor>",
                  detail::kind(BaseType::Tensor, true), a[i].to_tensor_list())
// `Tensor?[]` (index.Tensor's indices): None elements are undefined tensors in the arguments.
XPORT_KERNEL_TYPE(std::vector<std::optional<Tensor>>, "std::vector<std::optional<xport::Tensor>>",
                  detail::kind(BaseType::Tensor, true, true), [&] {
                    std::vector<std::optional<Tensor>> out;
                    for (const Tensor& t : a[i].to_tensor_list())
                      out.push_back(t.defined() ? std::optional(t) : std::nullopt);
                    return out;
                  }())
XPORT_KERNEL_TYPE(Scalar, "xport::Scalar", detail::kind(BaseType::Scalar), a[i].to_scalar())
XPORT_KERNEL_TYPE(int64_t, "int64_t", detail::kind(BaseType::Int), a[i].to_int())
XPORT_KERNEL_TYPE(std::vector<int64_t>, "std::vector<int64_t>", detail::kind(BaseType::Int, true),
                  a[i].to_int_list())
XPORT_KERNEL_TYPE(std::vector<double>, "std::vector<double>", detail::kind(BaseType::Float, true),
                  a[i].to_double_list())
XPORT_KERNEL_TYPE(std::vector<bool>, "std::vector<bool>", detail::kind(BaseType::Bool, true),
                  a[i].to_bool_list())
XPORT_KERNEL_TYPE(double, "double", detail::kind(BaseType::Float), a[i].to_double())
XPORT_KERNEL_TYPE(bool, "bool", detail::kind(BaseType::Bool), a[i].to_bool())
XPORT_KERNEL_TYPE(DType, "xport::DType", detail::kind(BaseType::ScalarType), a[i].to_dtype())
// `str`, and a Layout, Device or MemoryFormat (by name).
XPORT_KERNEL_TYPE(std::string, "std::string", detail::kind(BaseType::Str), a[i].to_string_value())
#undef XPORT_KERNEL_TYPE

template <class T>
struct KernelType<std::optional<T>> {
  static std::string name() { return "std::optional<" + KernelType<T>::name() + ">"; }
  static ArgType kind() {
    ArgType k = KernelType<T>::kind();
    k.optional = true;
    return k;
  }
  static std::optional<T> get(const OpArgs& a, const std::vector<Tensor>& outs, size_t i) {
    if (a[i].is_none()) return std::nullopt;
    return KernelType<T>::get(a, outs, i);
  }
};

/// One parameter: its value type by value or by const reference.
template <class P>
struct KernelParam : KernelType<std::remove_cvref_t<P>> {
  static std::string cpp() {
    const std::string name = KernelType<std::remove_cvref_t<P>>::name();
    return std::is_reference_v<P> ? "const " + name + "&" : name;
  }
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
  return KernelSymbol{std::move(name), {KernelParam<P>::cpp()...}, {KernelParam<P>::kind()...}};
}

}  // namespace detail

template <auto Fn>
OpKernel typed_kernel(std::string name) {
  using Tuple = typename detail::FunctionParams<decltype(Fn)>::Tuple;
  return OpKernel{
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
