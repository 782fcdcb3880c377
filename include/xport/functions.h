#pragma once
/// \file Free functions with ATen's names. Each is a thin call into the op registry, so the same
/// code runs eagerly or under capture.

#include <optional>
#include <string>
#include <vector>

#include "xport/linalg_functions.h"
#include "xport/nn_functions.h"
#include "xport/reduction_functions.h"
#include "xport/shape_functions.h"
#include "xport/tensor.h"

namespace xport {

// ---- factories ----
Tensor empty(SymIntList size, DType dtype = kDefaultFloat);
Tensor zeros(SymIntList size, DType dtype = kDefaultFloat);
Tensor ones(SymIntList size, DType dtype = kDefaultFloat);
/// dtype defaults to the fill value's kind: bool, int64 or float32.
Tensor full(SymIntList size, const Scalar& value, std::optional<DType> dtype = std::nullopt);
/// Uninitialised, with t's sizes and dtype (or `dtype`); in a custom op's meta function, the
/// usual way to say what a result looks like.
Tensor empty_like(const Tensor& t, std::optional<DType> dtype = std::nullopt);
Tensor zeros_like(const Tensor& t, std::optional<DType> dtype = std::nullopt);
Tensor ones_like(const Tensor& t, std::optional<DType> dtype = std::nullopt);
Tensor full_like(const Tensor& t, const Scalar& value, std::optional<DType> dtype = std::nullopt);
/// [0, end) or [start, end) by step; integer arguments give int64, any float gives float32.
Tensor arange(const Scalar& end, std::optional<DType> dtype = std::nullopt);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
              std::optional<DType> dtype = std::nullopt);
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                std::optional<DType> dtype = std::nullopt);
Tensor eye(SymInt n, std::optional<SymInt> m = std::nullopt, DType dtype = kDefaultFloat);
/// Standard normal / uniform [0, 1) samples from a generator seeded with `seed` (eager only;
/// the same seed gives the same values on every platform).
Tensor randn(SymIntList size, uint64_t seed, DType dtype = kDefaultFloat);
Tensor rand(SymIntList size, uint64_t seed, DType dtype = kDefaultFloat);
/// A tensor holding a copy of `data` (row-major), converted to `dtype`.
template <class T>
Tensor from_vector(const std::vector<T>& data, SymIntList shape, DType dtype = dtype_v<T>);

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
