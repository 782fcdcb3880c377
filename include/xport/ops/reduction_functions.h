#pragma once
/// \file Free functions of the reduction op family (ATen names), thin calls into the op registry.
/// An empty `dims` list means every dim, as in ATen.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport {

/// Sum of every element; integers and bool sum to int64 unless `dtype` is given.
Tensor sum(const Tensor& x, std::optional<DType> dtype = std::nullopt);
Tensor sum(const Tensor& x, std::vector<int64_t> dims, bool keepdim = false,
           std::optional<DType> dtype = std::nullopt);
/// Mean; the input (or `dtype`) must be floating.
Tensor mean(const Tensor& x, std::optional<DType> dtype = std::nullopt);
Tensor mean(const Tensor& x, std::vector<int64_t> dims, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& x, std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& x, int64_t dim, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt);
/// Maximum / minimum over `dims`; NaN propagates.
Tensor amax(const Tensor& x, std::vector<int64_t> dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, std::vector<int64_t> dims = {}, bool keepdim = false);
/// Maximum / minimum of every element (x must not be empty).
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);
/// Values and int64 indices along `dim` (first occurrence on ties; NaN counts as the extreme).
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
/// Index of the max / min along `dim`, or into the flattened tensor when `dim` is absent.
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
/// Variance / standard deviation: squared deviations summed over `dims` and divided by
/// max(0, n - correction); correction defaults to 1.
Tensor var(const Tensor& x, std::vector<int64_t> dims = {},
           std::optional<int64_t> correction = std::nullopt, bool keepdim = false);
Tensor std(const Tensor& x, std::vector<int64_t> dims = {},
           std::optional<int64_t> correction = std::nullopt, bool keepdim = false);
/// Whether any / all elements are nonzero (bool, or uint8 for uint8 input).
Tensor any(const Tensor& x);
Tensor any(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor all(const Tensor& x);
Tensor all(const Tensor& x, int64_t dim, bool keepdim = false);
/// log(sum(exp(x))) over `dims`, computed stably.
Tensor logsumexp(const Tensor& x, std::vector<int64_t> dims, bool keepdim = false);
/// Inclusive prefix sums along `dim`; integers and bool sum to int64 unless `dtype` is given.
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
/// softmax / log_softmax along `dim`, after converting to `dtype` when given.
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);

}  // namespace xport
