#pragma once
// Matrix products (mm, bmm, addmm, baddbmm, dot). float32 runs on oneDNN's sgemm, reading
// transposed or strided operands in place where BLAS can describe them; 16-bit floats compute in
// float32; float64 and integers use a plain blocked loop (integers wrap like C).

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// out = a @ b for a [m, k], b [k, n]; out [m, n]. Operands may have any strides.
void mm_out(const Tensor& a, const Tensor& b, const Tensor& out);
/// out = beta * self + alpha * (a @ b); self broadcasts to out's shape. beta == 0 ignores self
/// (NaN and inf included), as in ATen.
void addmm_out(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
               const Scalar& alpha, const Tensor& out);
/// out[i] = a[i] @ b[i] for a [B, m, k], b [B, k, n]; out [B, m, n].
void bmm_out(const Tensor& a, const Tensor& b, const Tensor& out);
/// out = beta * self + alpha * bmm(a, b); self broadcasts to out's shape.
void baddbmm_out(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
                 const Scalar& alpha, const Tensor& out);
/// out (0-dim) = sum(a * b) for 1-D a and b of the same size.
void dot_out(const Tensor& a, const Tensor& b, const Tensor& out);

}  // namespace xport::kernels::cpu
