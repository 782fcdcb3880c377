#pragma once
/// \file Free functions with ATen's names. Each is a thin call into the op registry, so the same
/// code runs eagerly or under capture.

#include <optional>
#include <string>
#include <vector>

#include "xport/ops/factories.h"
#include "xport/ops/linalg_functions.h"
#include "xport/ops/nn_functions.h"
#include "xport/ops/reduction_functions.h"
#include "xport/ops/shape_functions.h"
#include "xport/tensor/tensor.h"

namespace xport {

// ---- pointwise ----
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor log2(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
/// approximate: "none" (erf) or "tanh".
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor silu(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
Tensor trunc(const Tensor& x);
Tensor logical_not(const Tensor& x);
Tensor bitwise_not(const Tensor& x);
Tensor isnan(const Tensor& x);

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
/// rounding_mode: "trunc" or "floor".
Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Scalar& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor atan2(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);

}  // namespace xport
