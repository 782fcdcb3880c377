#pragma once
// Fused scaled dot-product attention: softmax(q k^T * scale + mask) v, one
// block of query rows at a time, without materializing the whole score matrix.

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// q [..., L, E], k [..., S, E], v [..., S, Ev]; their batch dims broadcast to
/// out's
/// [..., L, Ev]. `mask` may be undefined; a bool mask keeps positions where it
/// is true, any other is added to the scores; it broadcasts to [..., L, S].
/// `is_causal` keeps key j <= query i. All floating dtypes; float32 runs on
/// SGEMM.
void scaled_dot_product_attention_out(const Tensor& q, const Tensor& k, const Tensor& v,
                                      const Tensor& mask, bool is_causal, double scale,
                                      const Tensor& out);

}  // namespace xport::kernels::cpu
