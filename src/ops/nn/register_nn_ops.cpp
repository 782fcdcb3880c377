#include "ops/nn/nn_ops.h"
#include "ops/register_all.h"

namespace xport::ops {

void register_nn_ops() {
  register_pool_ops();
  register_grid_sample_ops();
  register_fold_ops();
  register_norm_ops();
  register_embedding_ops();
  register_dropout_ops();
  register_attention_ops();
  register_upsample_ops();
}

}  // namespace xport::ops
