#pragma once
// Embedding lookup: rows of a [num_rows, dim] weight gathered by integer
// indices.

#include <utility>

#include "xport/tensor.h"

namespace xport::kernels::cpu {

/// The smallest and largest index in `indices` (int32 or int64, non-empty), for
/// validating them before the lookup runs.
std::pair<int64_t, int64_t> index_min_max(const Tensor& indices);

/// out[..., :] = weight[indices[...], :]; every index must be in [0, weight
/// rows).
void embedding_out(const Tensor& weight, const Tensor& indices, const Tensor& out);

/// The weight's gradient: out[num_weights, dim] = the sum of the grad_output rows of each
/// index (padding_idx's rows left out), divided by the index's count with scale_grad_by_freq.
/// Indices are in range.
void embedding_dense_backward_out(const Tensor& grad_output, const Tensor& indices,
                                  int64_t padding_idx, bool scale_grad_by_freq, const Tensor& out);

}  // namespace xport::kernels::cpu
