#pragma once
// The nn op family's registration, one function per file of src/ops/nn, and what the pools share.

#include <vector>

#include "xport/op_registry.h"
#include "xport/tensor.h"

namespace xport::ops {

void register_pool_ops();         // pool_ops.cpp
void register_pool3d_ops();       // pool3d_ops.cpp
void register_norm_ops();         // norm_ops.cpp
void register_embedding_ops();    // embedding_ops.cpp
void register_dropout_ops();      // dropout_ops.cpp
void register_attention_ops();    // attention_ops.cpp
void register_upsample_ops();     // upsample_ops.cpp
void register_grid_sample_ops();  // grid_sample_ops.cpp
void register_fold_ops();         // fold_ops.cpp

/// ATen's pooling_output_shape: the number of windows along one dim, floor (or ceil) of the
/// window count; in ceil mode the last window must start inside the input or its left padding.
SymInt pooled_size(const SymInt& in, int64_t kernel, int64_t pad, int64_t stride, int64_t dilation,
                   bool ceil_mode);
/// A max pool's results for output `sizes`: the values, and with_indices int64 indices.
std::vector<TensorMeta> max_pool_results(const OpArgs& args, const std::vector<SymInt>& sizes,
                                         bool with_indices);
/// An average pool's result for output `sizes`, its dtype and divisor_override checked.
std::vector<TensorMeta> avg_pool_result(const OpArgs& args, const std::vector<SymInt>& sizes);

}  // namespace xport::ops
