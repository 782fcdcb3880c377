#pragma once
// The nn op family's registration, one function per file of src/ops/nn.

#include <vector>

#include "xport/ops/op_registry.h"
#include "xport/tensor/tensor.h"

namespace xport::ops {

void register_pool_ops();         // pool_ops.cpp (2-D and 3-D)
void register_norm_ops();         // norm_ops.cpp
void register_embedding_ops();    // embedding_ops.cpp
void register_dropout_ops();      // dropout_ops.cpp
void register_attention_ops();    // attention_ops.cpp
void register_upsample_ops();     // upsample_ops.cpp
void register_grid_sample_ops();  // grid_sample_ops.cpp
void register_fold_ops();         // fold_ops.cpp

}  // namespace xport::ops
