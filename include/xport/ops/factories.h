#pragma once
/// \file Tensor factories: new tensors from sizes, values, ranges, seeds or a vector. They are
/// what a program's caller needs to make inputs, so the runtime's umbrella (xport/runtime.h)
/// declares them too; the eager ops are in xport/ops/functions.h.

#include <cstdint>
#include <optional>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport {

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

}  // namespace xport
