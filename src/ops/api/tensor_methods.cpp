// Tensor's ATen-named methods: thin calls into the op registry.
#include <cmath>

#include "ops/op_util.h"
#include "xport/ops/functions.h"

namespace xport {

using ops::call1;

// Under capture a fake tensor's value is a fresh unbacked symbol, from the tracer.
SymInt Tensor::item_int() const {
  if (is_fake()) {
    if (DispatchInterceptor* interceptor = current_interceptor()) return interceptor->item_int(*this);
  }
  return SymInt(item_scalar().to_int());
}
SymFloat Tensor::item_float() const {
  if (is_fake()) {
    if (DispatchInterceptor* interceptor = current_interceptor())
      return interceptor->item_float(*this);
  }
  return SymFloat(item_scalar().to_double());
}
SymBool Tensor::item_bool() const {
  if (is_fake() && current_interceptor() != nullptr) return item_int() != 0;
  return SymBool(item_scalar().to_bool());
}

Tensor Tensor::view(SymIntList shape) const {
  return call1(XPORT_OP("aten::view"), {*this, shape.vec()});
}
Tensor Tensor::reshape(SymIntList shape) const {
  return call1(XPORT_OP("aten::reshape"), {*this, shape.vec()});
}
Tensor Tensor::permute(std::vector<int64_t> dims) const {
  return call1(XPORT_OP("aten::permute"), {*this, dims});
}
Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  return call1(XPORT_OP("aten::transpose.int"), {*this, dim0, dim1});
}
Tensor Tensor::t() const { return call1(XPORT_OP("aten::t"), {*this}); }
Tensor Tensor::slice(int64_t dim, std::optional<SymInt> start, std::optional<SymInt> end,
                     SymInt step) const {
  return call1(XPORT_OP("aten::slice.Tensor"),
               {*this, dim, start ? Value(*start) : Value(), end ? Value(*end) : Value(), step});
}
Tensor Tensor::select(int64_t dim, SymInt index) const {
  return call1(XPORT_OP("aten::select.int"), {*this, dim, index});
}
Tensor Tensor::narrow(int64_t dim, SymInt start, SymInt length) const {
  return call1(XPORT_OP("aten::narrow"), {*this, dim, start, length});
}
Tensor Tensor::expand(SymIntList shape) const {
  return call1(XPORT_OP("aten::expand"), {*this, shape.vec()});
}
Tensor Tensor::expand_as(const Tensor& other) const {
  return call1(XPORT_OP("aten::expand_as"), {*this, other});
}
Tensor Tensor::unsqueeze(int64_t dim) const {
  return call1(XPORT_OP("aten::unsqueeze"), {*this, dim});
}
Tensor Tensor::squeeze() const { return call1(XPORT_OP("aten::squeeze"), {*this}); }
Tensor Tensor::squeeze(int64_t dim) const {
  return call1(XPORT_OP("aten::squeeze.dim"), {*this, dim});
}
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  return call1(XPORT_OP("aten::flatten.using_ints"), {*this, start_dim, end_dim});
}
Tensor Tensor::unflatten(int64_t dim, SymIntList sizes) const {
  return call1(XPORT_OP("aten::unflatten.int"), {*this, dim, sizes.vec()});
}
Tensor Tensor::as_strided(SymIntList sizes, SymIntList strides,
                          std::optional<SymInt> storage_offset) const {
  return call1(XPORT_OP("aten::as_strided"), {*this, sizes.vec(), strides.vec(),
                                              storage_offset ? Value(*storage_offset) : Value()});
}
Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  return call1(XPORT_OP("aten::diagonal"), {*this, offset, dim1, dim2});
}
Tensor Tensor::contiguous() const { return call1(XPORT_OP("aten::contiguous"), {*this}); }

Tensor Tensor::to(DType dtype) const { return call1(XPORT_OP("aten::to.dtype"), {*this, dtype}); }
Tensor Tensor::clone() const { return call1(XPORT_OP("aten::clone"), {*this}); }
Tensor& Tensor::copy_(const Tensor& src) {
  call1(XPORT_OP("aten::copy_"), {*this, src});
  return *this;
}
Tensor& Tensor::fill_(const Scalar& value) {
  call1(XPORT_OP("aten::fill_.Scalar"), {*this, value});
  return *this;
}
Tensor& Tensor::zero_() {
  call1(XPORT_OP("aten::zero_"), {*this});
  return *this;
}

Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const {
  return xport::add(*this, other, alpha);
}
Tensor Tensor::add(const Scalar& other) const {
  return call1(XPORT_OP("aten::add.Scalar"), {*this, other});
}
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const {
  return xport::sub(*this, other, alpha);
}
Tensor Tensor::sub(const Scalar& other) const {
  return call1(XPORT_OP("aten::sub.Scalar"), {*this, other});
}
Tensor Tensor::mul(const Tensor& other) const { return xport::mul(*this, other); }
Tensor Tensor::mul(const Scalar& other) const {
  return call1(XPORT_OP("aten::mul.Scalar"), {*this, other});
}
Tensor Tensor::div(const Tensor& other) const { return xport::div(*this, other); }
Tensor Tensor::div(const Scalar& other) const {
  return call1(XPORT_OP("aten::div.Scalar"), {*this, other});
}
Tensor Tensor::pow(const Scalar& exponent) const { return xport::pow(*this, exponent); }
Tensor Tensor::pow(const Tensor& exponent) const { return xport::pow(*this, exponent); }
Tensor Tensor::neg() const { return xport::neg(*this); }
Tensor Tensor::abs() const { return xport::abs(*this); }
Tensor Tensor::exp() const { return xport::exp(*this); }
Tensor Tensor::log() const { return xport::log(*this); }
Tensor Tensor::sqrt() const { return xport::sqrt(*this); }
Tensor Tensor::rsqrt() const { return xport::rsqrt(*this); }
Tensor Tensor::tanh() const { return xport::tanh(*this); }
Tensor Tensor::sigmoid() const { return xport::sigmoid(*this); }
Tensor Tensor::relu() const { return xport::relu(*this); }

Tensor& Tensor::index_put_(const std::vector<Tensor>& indices, const Tensor& values,
                           bool accumulate) {
  call1(XPORT_OP("aten::index_put_"), {*this, indices, values, accumulate});
  return *this;
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  call1(XPORT_OP("aten::index_copy_"), {*this, dim, index, source});
  return *this;
}

Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) {
  call1(XPORT_OP("aten::add_.Tensor"), {*this, other, alpha});
  return *this;
}
Tensor& Tensor::add_(const Scalar& other) {
  call1(XPORT_OP("aten::add_.Scalar"), {*this, other});
  return *this;
}
Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) {
  call1(XPORT_OP("aten::sub_.Tensor"), {*this, other, alpha});
  return *this;
}
Tensor& Tensor::sub_(const Scalar& other) {
  call1(XPORT_OP("aten::sub_.Scalar"), {*this, other});
  return *this;
}
Tensor& Tensor::mul_(const Tensor& other) {
  call1(XPORT_OP("aten::mul_.Tensor"), {*this, other});
  return *this;
}
Tensor& Tensor::mul_(const Scalar& other) {
  call1(XPORT_OP("aten::mul_.Scalar"), {*this, other});
  return *this;
}
Tensor& Tensor::div_(const Tensor& other) {
  call1(XPORT_OP("aten::div_.Tensor"), {*this, other});
  return *this;
}
Tensor& Tensor::div_(const Scalar& other) {
  call1(XPORT_OP("aten::div_.Scalar"), {*this, other});
  return *this;
}

Tensor Tensor::eq(const Tensor& other) const { return xport::eq(*this, other); }
Tensor Tensor::eq(const Scalar& other) const {
  return call1(XPORT_OP("aten::eq.Scalar"), {*this, other});
}
Tensor Tensor::ne(const Tensor& other) const { return xport::ne(*this, other); }
Tensor Tensor::ne(const Scalar& other) const {
  return call1(XPORT_OP("aten::ne.Scalar"), {*this, other});
}
Tensor Tensor::lt(const Tensor& other) const { return xport::lt(*this, other); }
Tensor Tensor::lt(const Scalar& other) const {
  return call1(XPORT_OP("aten::lt.Scalar"), {*this, other});
}
Tensor Tensor::le(const Tensor& other) const { return xport::le(*this, other); }
Tensor Tensor::le(const Scalar& other) const {
  return call1(XPORT_OP("aten::le.Scalar"), {*this, other});
}
Tensor Tensor::gt(const Tensor& other) const { return xport::gt(*this, other); }
Tensor Tensor::gt(const Scalar& other) const {
  return call1(XPORT_OP("aten::gt.Scalar"), {*this, other});
}
Tensor Tensor::ge(const Tensor& other) const { return xport::ge(*this, other); }
Tensor Tensor::ge(const Scalar& other) const {
  return call1(XPORT_OP("aten::ge.Scalar"), {*this, other});
}

Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return a.sub(b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return a.div(b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return b.add(a); }
Tensor operator-(const Scalar& a, const Tensor& b) { return b.neg().add(a); }
Tensor operator*(const Scalar& a, const Tensor& b) { return b.mul(a); }
Tensor operator/(const Scalar& a, const Tensor& b) {
  const Tensor numerator =
      call1(XPORT_OP("aten::scalar_tensor"), {a, ResultType().tensor(b).scalar(a).get()});
  return numerator.div(b);
}
Tensor operator-(const Tensor& a) { return a.neg(); }

// A scalar on the left compares the other way round (0 < x is x > 0).
#define XPORT_COMPARISON(OP, METHOD, FLIPPED)                                            \
  Tensor operator OP(const Tensor& a, const Tensor& b) { return a.METHOD(b); }           \
  Tensor operator OP(const Tensor& a, const Scalar& b) { return a.METHOD(b); }          \
  Tensor operator OP(const Scalar& a, const Tensor& b) { return b.FLIPPED(a); }
XPORT_COMPARISON(==, eq, eq)
XPORT_COMPARISON(!=, ne, ne)
XPORT_COMPARISON(<, lt, gt)
XPORT_COMPARISON(<=, le, ge)
XPORT_COMPARISON(>, gt, lt)
XPORT_COMPARISON(>=, ge, le)
#undef XPORT_COMPARISON

}  // namespace xport
