#include "ops/linalg/linalg_ops.h"
#include "ops/register_all.h"

namespace xport::ops {

void register_linalg_ops() {
  register_matmul_ops();
  register_conv_ops();
  register_distance_ops();
}

}  // namespace xport::ops
