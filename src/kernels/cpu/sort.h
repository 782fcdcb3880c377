#pragma once
// Sorting kernels: sort (stable) and topk along one dim. NaN orders as the
// largest value, as in PyTorch.

#include <cstdint>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// Sorts self along dim (stable: equal values keep their order) into contiguous
/// `values` and int64 `indices` of self's shape.
void sort_out(const Tensor& self, int64_t dim, bool descending, const Tensor& values,
              const Tensor& indices);
/// The k largest (or smallest) values along dim and their int64 indices; in
/// order when `sorted` (the order is otherwise unspecified; this kernel always
/// sorts).
void topk_out(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
              const Tensor& values, const Tensor& indices);

}  // namespace xport::kernels::cpu
