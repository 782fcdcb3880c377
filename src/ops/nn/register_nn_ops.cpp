#include "ops/op_util.h"
#include "ops/register_all.h"

namespace xport::ops {

void register_nn_ops() {}

}  // namespace xport::ops
