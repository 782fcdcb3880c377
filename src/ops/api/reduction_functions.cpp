// Reduction free functions and Tensor methods: thin calls into the op registry.
#include "xport/ops/reduction_functions.h"

#include "ops/op_util.h"

namespace xport {

using ops::call1;

namespace {
Value opt(std::optional<DType> d) { return d ? Value(*d) : Value(); }
Value opt(std::optional<int64_t> i) { return i ? Value(*i) : Value(); }

std::pair<Tensor, Tensor> pair_of(std::vector<Tensor> outs) {
  return {std::move(outs.at(0)), std::move(outs.at(1))};
}
}  // namespace

Tensor sum(const Tensor& x, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::sum"), {x, opt(dtype)});
}
Tensor sum(const Tensor& x, std::vector<int64_t> dims, bool keepdim, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::sum.dim_IntList"), {x, dims, keepdim, opt(dtype)});
}
Tensor mean(const Tensor& x, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::mean"), {x, opt(dtype)});
}
Tensor mean(const Tensor& x, std::vector<int64_t> dims, bool keepdim, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::mean.dim"), {x, dims, keepdim, opt(dtype)});
}
Tensor prod(const Tensor& x, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::prod"), {x, opt(dtype)});
}
Tensor prod(const Tensor& x, int64_t dim, bool keepdim, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::prod.dim_int"), {x, dim, keepdim, opt(dtype)});
}
Tensor amax(const Tensor& x, std::vector<int64_t> dims, bool keepdim) {
  return call1(XPORT_OP("aten::amax"), {x, dims, keepdim});
}
Tensor amin(const Tensor& x, std::vector<int64_t> dims, bool keepdim) {
  return call1(XPORT_OP("aten::amin"), {x, dims, keepdim});
}
Tensor max(const Tensor& x) { return call1(XPORT_OP("aten::max"), {x}); }
Tensor min(const Tensor& x) { return call1(XPORT_OP("aten::min"), {x}); }
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  return pair_of(call_tensors(XPORT_OP("aten::max.dim"), {x, dim, keepdim}));
}
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  return pair_of(call_tensors(XPORT_OP("aten::min.dim"), {x, dim, keepdim}));
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return call1(XPORT_OP("aten::argmax"), {x, opt(dim), keepdim});
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return call1(XPORT_OP("aten::argmin"), {x, opt(dim), keepdim});
}
Tensor var(const Tensor& x, std::vector<int64_t> dims, std::optional<int64_t> correction,
           bool keepdim) {
  return call1(XPORT_OP("aten::var.correction"), {x, dims, opt(correction), keepdim});
}
Tensor std(const Tensor& x, std::vector<int64_t> dims, std::optional<int64_t> correction,
           bool keepdim) {
  return call1(XPORT_OP("aten::std.correction"), {x, dims, opt(correction), keepdim});
}
Tensor any(const Tensor& x) { return call1(XPORT_OP("aten::any"), {x}); }
Tensor any(const Tensor& x, int64_t dim, bool keepdim) {
  return call1(XPORT_OP("aten::any.dim"), {x, dim, keepdim});
}
Tensor all(const Tensor& x) { return call1(XPORT_OP("aten::all"), {x}); }
Tensor all(const Tensor& x, int64_t dim, bool keepdim) {
  return call1(XPORT_OP("aten::all.dim"), {x, dim, keepdim});
}
Tensor logsumexp(const Tensor& x, std::vector<int64_t> dims, bool keepdim) {
  return call1(XPORT_OP("aten::logsumexp"), {x, dims, keepdim});
}
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::cumsum"), {x, dim, opt(dtype)});
}
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::softmax.int"), {x, dim, opt(dtype)});
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return call1(XPORT_OP("aten::log_softmax.int"), {x, dim, opt(dtype)});
}

// ---- Tensor methods ----
Tensor Tensor::sum(std::optional<DType> dtype) const { return xport::sum(*this, dtype); }
Tensor Tensor::sum(std::vector<int64_t> dims, bool keepdim) const {
  return xport::sum(*this, std::move(dims), keepdim);
}
Tensor Tensor::mean() const { return xport::mean(*this); }
Tensor Tensor::mean(std::vector<int64_t> dims, bool keepdim) const {
  return xport::mean(*this, std::move(dims), keepdim);
}
Tensor Tensor::max() const { return xport::max(*this); }
std::pair<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return xport::max(*this, dim, keepdim);
}
Tensor Tensor::amax(std::vector<int64_t> dims, bool keepdim) const {
  return xport::amax(*this, std::move(dims), keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return xport::argmax(*this, dim, keepdim);
}
Tensor Tensor::softmax(int64_t dim) const { return xport::softmax(*this, dim); }

}  // namespace xport
