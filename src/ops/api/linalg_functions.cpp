// Free functions of the linalg family and Tensor::matmul.
#include "xport/ops/linalg_functions.h"

#include "ops/op_util.h"

namespace xport {

using ops::call1;

namespace {
Value optional(const Tensor& t) { return t.defined() ? Value(t) : Value(); }
}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) {
  return call1(XPORT_OP("aten::mm"), {self, mat2});
}
Tensor bmm(const Tensor& self, const Tensor& mat2) {
  return call1(XPORT_OP("aten::bmm"), {self, mat2});
}
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha) {
  return call1(XPORT_OP("aten::addmm"), {self, mat1, mat2, beta, alpha});
}
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return call1(XPORT_OP("aten::baddbmm"), {self, batch1, batch2, beta, alpha});
}
Tensor dot(const Tensor& self, const Tensor& tensor) {
  return call1(XPORT_OP("aten::dot"), {self, tensor});
}
Tensor matmul(const Tensor& self, const Tensor& other) {
  return call1(XPORT_OP("aten::matmul"), {self, other});
}
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return call1(XPORT_OP("aten::linear"), {input, weight, optional(bias)});
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, SymIntList stride,
              SymIntList padding, SymIntList dilation, int64_t groups) {
  return call1(XPORT_OP("aten::conv2d"), {input, weight, optional(bias), stride.vec(),
                                          padding.vec(), dilation.vec(), groups});
}

Tensor Tensor::matmul(const Tensor& other) const { return xport::matmul(*this, other); }

}  // namespace xport
