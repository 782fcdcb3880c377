#pragma once
// Embedding lookup: rows of a [num_rows, dim] weight gathered by integer
// indices.

#include <utility>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// The smallest and largest index in `indices` (int32 or int64, non-empty), for
/// validating them before the lookup runs.
std::pair<int64_t, int64_t> index_min_max(const Tensor& indices);

/// out[..., :] = weight[indices[...], :]; every index must be in [0, weight
/// rows).
void embedding_out(const Tensor& weight, const Tensor& indices, const Tensor& out);

enum class BagMode { Sum = 0, Mean = 1, Max = 2 };

/// _embedding_bag: output[b] = the sum, mean or max of weight's rows indices[offsets[b] ..
/// offsets[b + 1]) (a bag without a next offset runs to the end: output's rows say how many
/// bags there are, so include_last_offset needs no flag here), padding_idx's rows
/// left out and, for Sum, each row scaled by its per_sample_weights entry (may be undefined). The
/// auxiliary results are ATen's: offset2bag (each index's bag; written when it has elements),
/// bag_size (the rows each Mean / Max bag took, 0 for Sum) and max_indices (Max: the row each
/// maximum came from; otherwise bag_size again). Indices are in range.
void embedding_bag_out(const Tensor& weight, const Tensor& indices, const Tensor& offsets,
                       BagMode mode, const Tensor& per_sample_weights, int64_t padding_idx,
                       const Tensor& output, const Tensor& offset2bag, const Tensor& bag_size,
                       const Tensor& max_indices);

/// The weight's gradient: out[num_weights, dim] = the sum of the grad_output rows of each
/// index (padding_idx's rows left out), divided by the index's count with scale_grad_by_freq.
/// Indices are in range.
void embedding_dense_backward_out(const Tensor& grad_output, const Tensor& indices,
                                  int64_t padding_idx, bool scale_grad_by_freq, const Tensor& out);

}  // namespace xport::kernels::cpu
