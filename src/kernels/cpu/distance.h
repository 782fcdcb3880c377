#pragma once
// Pairwise p-norm distances: cdist (between two sets of rows) and pdist (within one set).

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// out[b, i, j] = |x1[b, i] - x2[b, j]|_p for x1 [B, P, M], x2 [B, R, M] (contiguous, float32 or
/// float64) and out [B, P, R]. p = 0 counts differing coordinates; p = inf takes the largest.
void cdist_out(const Tensor& x1, const Tensor& x2, double p, const Tensor& out);
/// out[k] = |x[i] - x[j]|_p for each pair i < j of rows of x [N, M] (contiguous), in row-major
/// order of (i, j): out has N (N - 1) / 2 elements.
void pdist_out(const Tensor& x, double p, const Tensor& out);

}  // namespace xport::kernels::cpu
