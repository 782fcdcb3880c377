#pragma once
// Reduction CPU kernels. Each reduces `self` over `dims` (wrapped, sorted, unique; empty for a
// 0-dim self) and writes `out`, which holds the kept dims in order (keepdim only adds size-1
// dims) and was sized and typed by the op's meta function. Inputs of any layout and dtype are
// accepted; they are converted to out's dtype first where ATen does so (sum, prod, cumsum).

#include <vector>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

void sum_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
void mean_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
void prod_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
/// Maximum / minimum; NaN wins.
void amax_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
void amin_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
/// Values and int64 indices of the maximum / minimum along `dims` (one dim, or every dim with
/// indices into the flattened tensor). The first occurrence wins ties; the first NaN wins.
/// `values` may be undefined (argmax, argmin).
void max_with_indices_out(const Tensor& self, const std::vector<int64_t>& dims,
                          const Tensor& values, const Tensor& indices);
void min_with_indices_out(const Tensor& self, const std::vector<int64_t>& dims,
                          const Tensor& values, const Tensor& indices);
/// Variance with `correction` (sum of squared deviations / max(0, n - correction)); its square
/// root when `take_sqrt`.
void var_out(const Tensor& self, const std::vector<int64_t>& dims, double correction,
             bool take_sqrt, const Tensor& out);
/// log(sum(exp(self))) over dims, shifted by the max; out is floating (float32 for integers).
void logsumexp_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
/// Whether any / all values are nonzero (NaN counts as nonzero); out is bool or uint8.
void any_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
void all_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
/// Inclusive prefix sums along `dim` (0 for a 0-dim self), in out's dtype.
void cumsum_out(const Tensor& self, int64_t dim, const Tensor& out);

}  // namespace xport::kernels::cpu
