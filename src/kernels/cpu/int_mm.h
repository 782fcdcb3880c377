#pragma once
// aten::_int_mm: an integer matrix product with exact int32 accumulation, as PyTorch's CPU kernel
// computes it (torchao's dynamic int8 activation x int8 weight programs call it on uint8 or int8
// activations and int8 weights).

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// out int32 [M, N] = a [M, K] (uint8 or int8) @ b int8 [K, N], summed in int32 with wrapping
/// as two's complement wraps. b may be the transpose of a contiguous [N, K] matrix (a linear
/// layer's weight, as torchao passes it): then each value is a dot product of two contiguous rows.
void int_mm_out(const Tensor& a, const Tensor& b, const Tensor& out);

}  // namespace xport::kernels::cpu
