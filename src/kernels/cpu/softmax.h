#pragma once
// softmax and log_softmax along one dim (CPU). Float inputs only; 16-bit floats compute in
// float32. `out` has self's shape and a floating dtype (half_to_float gives float32 for float16).

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// out = exp(x - max) / sum(exp(x - max)) along `dim` (0 for a 0-dim self); with `log`,
/// out = x - max - log(sum(exp(x - max))).
void softmax_out(const Tensor& self, int64_t dim, bool log, const Tensor& out);

}  // namespace xport::kernels::cpu
