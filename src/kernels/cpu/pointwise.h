#pragma once
// Elementwise CPU kernels. Each writes `out`, which the caller sized and typed (by the op's meta
// function); inputs broadcast to out's shape and convert to the compute type.

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

// ---- unary: out = f(self) ----
#define XPORT_UNARY_KERNELS(X)                                                                   \
  X(neg)                                                                                         \
  X(abs) X(sign) X(exp) X(expm1) X(log) X(log1p) X(log2) X(sqrt) X(rsqrt) X(sin) X(cos) X(tan)   \
      X(tanh) X(sigmoid) X(relu) X(silu) X(erf) X(reciprocal) X(floor) X(ceil) X(round) X(trunc) \
          X(logical_not) X(bitwise_not) X(isnan) X(isinf) X(acos) X(asin) X(atan) X(acosh)       \
              X(asinh) X(atanh) X(cosh) X(sinh) X(log10)
#define XPORT_DECLARE_UNARY(name) void name##_out(const Tensor& self, const Tensor& out);
XPORT_UNARY_KERNELS(XPORT_DECLARE_UNARY)
#undef XPORT_DECLARE_UNARY
void gelu_out(const Tensor& self, bool tanh_approximation, const Tensor& out);
/// out = x > 0 ? scale * x : scale * alpha * (exp(x * input_scale) - 1)
void elu_out(const Tensor& self, const Scalar& alpha, const Scalar& scale,
             const Scalar& input_scale, const Tensor& out);
/// out = x > 0 ? x : x * negative_slope
void leaky_relu_out(const Tensor& self, const Scalar& negative_slope, const Tensor& out);
/// out = min(max(x, min_val), max_val); NaN stays NaN.
void hardtanh_out(const Tensor& self, const Scalar& min_val, const Scalar& max_val,
                  const Tensor& out);

// ---- binary: out = f(a, b) ----
#define XPORT_BINARY_KERNELS(X)                                                                  \
  X(mul)                                                                                         \
  X(div_true) X(div_trunc) X(div_floor) X(remainder) X(pow) X(maximum) X(minimum) X(atan2) X(eq) \
      X(ne) X(lt) X(le) X(gt) X(ge) X(logical_and) X(logical_or) X(logical_xor) X(bitwise_and)   \
          X(bitwise_or) X(bitwise_xor) X(fmod)
#define XPORT_DECLARE_BINARY(name) \
  void name##_out(const Tensor& a, const Tensor& b, const Tensor& out);
XPORT_BINARY_KERNELS(XPORT_DECLARE_BINARY)
#undef XPORT_DECLARE_BINARY
/// out = a + alpha * b (sub passes -alpha).
void add_out(const Tensor& a, const Tensor& b, const Scalar& alpha, const Tensor& out);

// ---- others ----
/// out = cond ? a : b
void where_out(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out);
/// out = min(max(self, lo), hi); an undefined bound is absent.
void clamp_out(const Tensor& self, const Tensor& lo, const Tensor& hi, const Tensor& out);
/// Fills out with one value.
void fill_out(const Scalar& value, const Tensor& out);
/// A 0-dim tensor holding `value` as `dtype` (how a Scalar joins a tensor kernel).
Tensor scalar_tensor(const Scalar& value, DType dtype);

}  // namespace xport::kernels::cpu
