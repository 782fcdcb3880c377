// Free functions of the shape family: each calls its op through the registry.
#include "xport/ops/shape_functions.h"

#include "ops/op_util.h"

namespace xport {

using ops::call1;

namespace {
Value opt(const std::optional<SymInt>& v) { return v ? Value(*v) : Value(); }
std::pair<Tensor, Tensor> pair_of(std::vector<Tensor> outs) {
  return {std::move(outs[0]), std::move(outs[1])};
}
}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  return call1(XPORT_OP("aten::cat"), {tensors, dim});
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  return call1(XPORT_OP("aten::stack"), {tensors, dim});
}
std::vector<Tensor> split(const Tensor& self, SymInt split_size, int64_t dim) {
  return call_tensors(XPORT_OP("aten::split.Tensor"), {self, split_size, dim});
}
std::vector<Tensor> split_with_sizes(const Tensor& self, SymIntList split_sizes, int64_t dim) {
  return call_tensors(XPORT_OP("aten::split_with_sizes"), {self, split_sizes.vec(), dim});
}
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return call_tensors(XPORT_OP("aten::chunk"), {self, chunks, dim});
}
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  return call_tensors(XPORT_OP("aten::unbind.int"), {self, dim});
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  return call1(XPORT_OP("aten::index_select"), {self, dim, index});
}
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  return call1(XPORT_OP("aten::gather"), {self, dim, index});
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return call1(XPORT_OP("aten::scatter.src"), {self, dim, index, src});
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return call1(XPORT_OP("aten::scatter.value"), {self, dim, index, value});
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return call1(XPORT_OP("aten::scatter_add"), {self, dim, index, src});
}
Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  return call1(XPORT_OP("aten::index.Tensor"), {self, indices});
}
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate) {
  return call1(XPORT_OP("aten::index_put"), {self, indices, values, accumulate});
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return call1(XPORT_OP("aten::index_copy"), {self, dim, index, source});
}
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim,
                     std::optional<SymInt> start, std::optional<SymInt> end, SymInt step) {
  return call1(XPORT_OP("aten::slice_scatter"), {self, src, dim, opt(start), opt(end), step});
}
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, SymInt index) {
  return call1(XPORT_OP("aten::select_scatter"), {self, src, dim, index});
}
Tensor nonzero(const Tensor& self) { return call1(XPORT_OP("aten::nonzero"), {self}); }
Tensor masked_select(const Tensor& self, const Tensor& mask) {
  return call1(XPORT_OP("aten::masked_select"), {self, mask});
}

Tensor repeat(const Tensor& self, SymIntList repeats) {
  return call1(XPORT_OP("aten::repeat"), {self, repeats.vec()});
}
Tensor tile(const Tensor& self, SymIntList dims) {
  return call1(XPORT_OP("aten::tile"), {self, dims.vec()});
}
Tensor flip(const Tensor& self, const std::vector<int64_t>& dims) {
  return call1(XPORT_OP("aten::flip"), {self, dims});
}
Tensor roll(const Tensor& self, SymIntList shifts, const std::vector<int64_t>& dims) {
  return call1(XPORT_OP("aten::roll"), {self, shifts.vec(), dims});
}
Tensor triu(const Tensor& self, int64_t diagonal) {
  return call1(XPORT_OP("aten::triu"), {self, diagonal});
}
Tensor tril(const Tensor& self, int64_t diagonal) {
  return call1(XPORT_OP("aten::tril"), {self, diagonal});
}
Tensor constant_pad_nd(const Tensor& self, SymIntList pad, const Scalar& value) {
  return call1(XPORT_OP("aten::constant_pad_nd"), {self, pad.vec(), value});
}
Tensor pad(const Tensor& self, SymIntList pad, const std::string& mode,
           std::optional<double> value) {
  return call1(XPORT_OP("aten::pad"), {self, pad.vec(), mode, value ? Value(*value) : Value()});
}

std::pair<Tensor, Tensor> topk(const Tensor& self, SymInt k, int64_t dim, bool largest,
                               bool sorted) {
  return pair_of(call_tensors(XPORT_OP("aten::topk"), {self, k, dim, largest, sorted}));
}
std::pair<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return pair_of(call_tensors(XPORT_OP("aten::sort"), {self, dim, descending}));
}
std::pair<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim,
                               bool descending) {
  return pair_of(call_tensors(XPORT_OP("aten::sort.stable"),
                              {self, stable ? Value(*stable) : Value(), dim, descending}));
}

}  // namespace xport
