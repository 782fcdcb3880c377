// libxport_example_ops.so: registers accel::conv2d when loaded (`xport run --ops`). Built
// without linking xport: the ops, the registry and the tensors are the loading program's.
#include "examples/custom_ops/accel_ops.h"

namespace {
const bool registered = (accel::register_ops(), true);
}  // namespace
