// Free functions: each calls its op once looked up (XPORT_OP caches the lookup per call site).
#include "xport/ops/functions.h"

#include "ops/op_util.h"

namespace xport {

using ops::call1;

namespace {
Value opt(std::optional<DType> d) { return d ? Value(*d) : Value(); }
}  // namespace

Tensor empty(SymIntList size, DType dtype) {
  return call1(XPORT_OP("aten::empty.memory_format"), {size.vec(), dtype});
}
Tensor zeros(SymIntList size, DType dtype) {
  return call1(XPORT_OP("aten::zeros"), {size.vec(), dtype});
}
Tensor ones(SymIntList size, DType dtype) {
  return call1(XPORT_OP("aten::ones"), {size.vec(), dtype});
}
Tensor full(SymIntList size, const Scalar& value, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::full"), {size.vec(), value, opt(dtype)});
}
Tensor empty_like(const Tensor& t, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::empty_like"), {t, opt(dtype)});
}
Tensor zeros_like(const Tensor& t, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::zeros_like"), {t, opt(dtype)});
}
Tensor ones_like(const Tensor& t, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::ones_like"), {t, opt(dtype)});
}
Tensor full_like(const Tensor& t, const Scalar& value, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::full_like"), {t, value, opt(dtype)});
}
Tensor arange(const Scalar& end, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::arange"), {end, opt(dtype)});
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::arange.start_step"), {start, end, step, opt(dtype)});
}
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::linspace"), {start, end, steps, opt(dtype)});
}
Tensor eye(SymInt n, std::optional<SymInt> m, DType dtype) {
  if (m) return call1(XPORT_OP("aten::eye.m"), {n, *m, dtype});
  return call1(XPORT_OP("aten::eye"), {n, dtype});
}

#define XPORT_UNARY_FUNCTION(name) \
  Tensor name(const Tensor& x) { return call1(XPORT_OP("aten::" #name), {x}); }
XPORT_UNARY_FUNCTION(neg)
XPORT_UNARY_FUNCTION(abs)
XPORT_UNARY_FUNCTION(sign)
XPORT_UNARY_FUNCTION(exp)
XPORT_UNARY_FUNCTION(expm1)
XPORT_UNARY_FUNCTION(log)
XPORT_UNARY_FUNCTION(log1p)
XPORT_UNARY_FUNCTION(log2)
XPORT_UNARY_FUNCTION(sqrt)
XPORT_UNARY_FUNCTION(rsqrt)
XPORT_UNARY_FUNCTION(sin)
XPORT_UNARY_FUNCTION(cos)
XPORT_UNARY_FUNCTION(tan)
XPORT_UNARY_FUNCTION(tanh)
XPORT_UNARY_FUNCTION(sigmoid)
XPORT_UNARY_FUNCTION(relu)
XPORT_UNARY_FUNCTION(silu)
XPORT_UNARY_FUNCTION(erf)
XPORT_UNARY_FUNCTION(reciprocal)
XPORT_UNARY_FUNCTION(floor)
XPORT_UNARY_FUNCTION(ceil)
XPORT_UNARY_FUNCTION(round)
XPORT_UNARY_FUNCTION(trunc)
XPORT_UNARY_FUNCTION(logical_not)
XPORT_UNARY_FUNCTION(bitwise_not)
XPORT_UNARY_FUNCTION(isnan)
#undef XPORT_UNARY_FUNCTION

Tensor gelu(const Tensor& x, const std::string& approximate) {
  return call1(XPORT_OP("aten::gelu"), {x, approximate});
}

#define XPORT_BINARY_FUNCTION(name, op) \
  Tensor name(const Tensor& a, const Tensor& b) { return call1(XPORT_OP(op), {a, b}); }
XPORT_BINARY_FUNCTION(mul, "aten::mul.Tensor")
XPORT_BINARY_FUNCTION(div, "aten::div.Tensor")
XPORT_BINARY_FUNCTION(remainder, "aten::remainder.Tensor")
XPORT_BINARY_FUNCTION(pow, "aten::pow.Tensor_Tensor")
XPORT_BINARY_FUNCTION(maximum, "aten::maximum")
XPORT_BINARY_FUNCTION(minimum, "aten::minimum")
XPORT_BINARY_FUNCTION(atan2, "aten::atan2")
XPORT_BINARY_FUNCTION(eq, "aten::eq.Tensor")
XPORT_BINARY_FUNCTION(ne, "aten::ne.Tensor")
XPORT_BINARY_FUNCTION(lt, "aten::lt.Tensor")
XPORT_BINARY_FUNCTION(le, "aten::le.Tensor")
XPORT_BINARY_FUNCTION(gt, "aten::gt.Tensor")
XPORT_BINARY_FUNCTION(ge, "aten::ge.Tensor")
XPORT_BINARY_FUNCTION(logical_and, "aten::logical_and")
XPORT_BINARY_FUNCTION(logical_or, "aten::logical_or")
XPORT_BINARY_FUNCTION(logical_xor, "aten::logical_xor")
XPORT_BINARY_FUNCTION(bitwise_and, "aten::bitwise_and.Tensor")
XPORT_BINARY_FUNCTION(bitwise_or, "aten::bitwise_or.Tensor")
XPORT_BINARY_FUNCTION(bitwise_xor, "aten::bitwise_xor.Tensor")
#undef XPORT_BINARY_FUNCTION

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return call1(XPORT_OP("aten::add.Tensor"), {a, b, alpha});
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return call1(XPORT_OP("aten::sub.Tensor"), {a, b, alpha});
}
Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode) {
  return call1(XPORT_OP("aten::div.Tensor_mode"), {a, b, rounding_mode});
}
Tensor pow(const Tensor& a, const Scalar& b) {
  return call1(XPORT_OP("aten::pow.Tensor_Scalar"), {a, b});
}
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  return call1(XPORT_OP("aten::where.self"), {condition, a, b});
}
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  return call1(XPORT_OP("aten::clamp"),
               {x, min ? Value(*min) : Value(), max ? Value(*max) : Value()});
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) {
  return call1(XPORT_OP("aten::masked_fill.Scalar"), {x, mask, value});
}

}  // namespace xport
