#pragma once
// The view ops' out-variant kernels: one named function per op, its parameters the schema's
// arguments in order, then one tensor per result. Registration binds them (XPORT_OP_KERNEL) and
// a code generator can call them. Arguments are valid: the op's meta function checked them.

#include "xport/tensor.h"

namespace xport::ops {

void detach__out(const Tensor& self, const Tensor& out);

}  // namespace xport::ops
