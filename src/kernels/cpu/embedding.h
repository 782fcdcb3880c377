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

}  // namespace xport::kernels::cpu
