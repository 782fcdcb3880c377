#pragma once
/// \file Free functions of the linalg op family (ATen names), thin calls into the op registry.

#include <optional>
#include <string>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport {

/// Matrix product of two 2-D tensors of the same dtype: [n, k] @ [k, p] -> [n, p].
Tensor mm(const Tensor& self, const Tensor& mat2);
/// Batched matrix product of two 3-D tensors with equal batch sizes (no broadcasting).
Tensor bmm(const Tensor& self, const Tensor& mat2);
/// beta * self + alpha * (mat1 @ mat2); self broadcasts to the product's shape.
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
/// beta * self + alpha * bmm(batch1, batch2).
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               const Scalar& beta = 1, const Scalar& alpha = 1);
/// Inner product of two 1-D tensors (a 0-dim result).
Tensor dot(const Tensor& self, const Tensor& tensor);
/// torch.matmul: dot, matrix-vector, matrix and batched products with broadcast batch dims.
Tensor matmul(const Tensor& self, const Tensor& other);
/// input @ weight.T + bias, for weight [out_features, in_features].
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor());
/// 2-D convolution of a 4-D [N, C, H, W] or unbatched 3-D [C, H, W] input with weight
/// [O, C / groups, kH, kW]; bias [O] may be undefined.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
              SymIntList stride = {1, 1}, SymIntList padding = {0, 0}, SymIntList dilation = {1, 1},
              int64_t groups = 1);

}  // namespace xport
