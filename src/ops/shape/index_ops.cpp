// Gathering ops: index_select, gather, index.Tensor (advanced indexing),
// index_put, nonzero.
#include "kernels/cpu/index.h"
#include "ops/shape/shape_ops.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
void check_gather_index(const OpArgs& args, const Tensor& self, const Tensor& index) {
  XPORT_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, InvalidInput,
              args.name(), ": index must be int64 or int32, got ", dtype_name(index.dtype()));
  XPORT_CHECK(nonempty_dim(index) == nonempty_dim(self), InvalidInput, args.name(),
              ": index must have as many dims as self: index ", shape_str(index.sizes()), ", self ",
              shape_str(self.sizes()));
}

namespace {

namespace cpu = kernels::cpu;

bool is_mask(const Tensor& t) {
  return t.defined() && (t.dtype() == DType::Bool || t.dtype() == DType::UInt8);
}

// Checks index dtypes, masks' shapes against self and the count of indexed
// dims.
void check_indices(const OpArgs& args, const Tensor& self, const std::vector<Tensor>& indices) {
  int64_t consumed = 0;
  for (const Tensor& t : indices) {
    if (!t.defined()) {
      ++consumed;
      continue;
    }
    XPORT_CHECK(is_mask(t) || t.dtype() == DType::Int64 || t.dtype() == DType::Int32, InvalidInput,
                args.name(),
                ": tensors used as indices must be long, int, byte or bool "
                "tensors, got ",
                dtype_name(t.dtype()));
    if (is_mask(t)) {
      for (int64_t j = 0; j < t.dim(); ++j) {
        XPORT_CHECK(consumed + j < self.dim() &&
                        static_cast<bool>(t.sizes()[j] == self.sizes()[consumed + j]),
                    InvalidInput, args.name(), ": the shape of the mask ", shape_str(t.sizes()),
                    " at index ", j, " does not match the shape of the indexed tensor ",
                    shape_str(self.sizes()), " at index ", consumed + j);
      }
      consumed += t.dim();
    } else {
      ++consumed;
    }
  }
  XPORT_CHECK(consumed <= self.dim(), InvalidInput, args.name(),
              ": too many indices for tensor of dimension ", self.dim(), " (got ", consumed, ")");
}

// The shape of self[indices] for integer (not mask) indices: the broadcast
// index shape replaces the indexed dims where they are adjacent, else goes
// first.
std::vector<SymInt> index_result_sizes(const OpArgs& args, const Tensor& self,
                                       const std::vector<Tensor>& indices) {
  std::vector<int64_t> dims;
  std::vector<SymInt> b_sizes;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].defined()) continue;
    if (dims.empty())
      b_sizes = indices[d].sizes();
    else
      b_sizes = broadcast_shapes(args, b_sizes, indices[d].sizes());
    dims.push_back(static_cast<int64_t>(d));
  }
  XPORT_CHECK(!dims.empty(), InvalidInput, args.name(),
              ": needs at least one index tensor, got only None; use the "
              "tensor itself");
  const bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  std::vector<SymInt> sizes;
  if (adjacent) {
    for (int64_t d = 0; d < dims.front(); ++d) sizes.push_back(self.sizes()[d]);
  }
  sizes.insert(sizes.end(), b_sizes.begin(), b_sizes.end());
  for (int64_t d = adjacent ? dims.back() + 1 : 0; d < self.dim(); ++d) {
    if (d < static_cast<int64_t>(indices.size()) && indices[d].defined()) continue;
    sizes.push_back(self.sizes()[d]);
  }
  return sizes;
}

bool has_mask(const std::vector<Tensor>& indices) {
  for (const Tensor& t : indices)
    if (is_mask(t)) return true;
  return false;
}

std::vector<TensorMeta> index_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<Tensor>& indices = args.tensors("indices");
  check_indices(args, self, indices);
  if (has_mask(indices)) {
    // x[mask] with one mask over leading dims: one row per true element, a size only the data
    // decides.
    XPORT_CHECK(indices.size() == 1 && indices[0].dim() <= self.dim(), DataDependent,
                args.name(),
                ": capture supports a bool mask as the only index (x[mask]); for other mixes of "
                "masks and indices, index with nonzero(mask), or use where(mask, x, other) to "
                "keep the shape");
    const Tensor& mask = indices[0];
    std::vector<SymInt> sizes = {data_dependent_size(args, 0, numel_bound(mask.sizes()))};
    for (int64_t d = mask.dim(); d < self.dim(); ++d) sizes.push_back(self.size(d));
    return {contiguous_meta(std::move(sizes), self.dtype())};
  }
  return {contiguous_meta(index_result_sizes(args, self, indices), self.dtype())};
}

std::vector<TensorMeta> nonzero_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  return {contiguous_meta({data_dependent_size(args, 0, numel_bound(self.sizes())), self.dim()},
                          DType::Int64)};
}

std::vector<Tensor> index_eager(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  check_indices(args, self, args.tensors("indices"));
  const std::vector<Tensor> indices = cpu::expand_masks(args.tensors("indices"));
  std::vector<int64_t> sizes;
  for (const SymInt& s : index_result_sizes(args, self, indices))
    sizes.push_back(static_cast<int64_t>(s));
  Tensor out = Tensor::empty_contiguous(sizes, self.dtype());
  cpu::index_out(self, indices, out, args.name());
  return {out};
}

std::vector<TensorMeta> index_put_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const std::vector<Tensor>& indices = args.tensors("indices");
  const Tensor& values = args.tensor("values");
  check_indices(args, self, indices);
  XPORT_CHECK(values.dtype() == self.dtype(), InvalidInput, args.name(),
              ": the values' dtype must match self's, got ", dtype_name(values.dtype()), " for ",
              dtype_name(self.dtype()), "; convert values with .to(dtype)");
  // With a mask the indexing result's size depends on data: the kernel checks
  // values then.
  if (!has_mask(indices)) {
    const std::vector<SymInt> result = index_result_sizes(args, self, indices);
    const std::vector<SymInt>& vs = values.sizes();
    bool ok = vs.size() <= result.size();
    for (size_t i = 0; ok && i < vs.size(); ++i) {
      const SymInt& r = result[result.size() - vs.size() + i];
      // Size-obliviously: a values dim of symbolic size broadcasts whether or not it is 1.
      ok = guard_size_oblivious(vs[i] == 1) || static_cast<bool>(vs[i] == r);
    }
    XPORT_CHECK(ok, InvalidInput, args.name(), ": shape mismatch: value tensor of shape ",
                shape_str(vs), " cannot be broadcast to indexing result of shape ",
                shape_str(result));
  }
  return {contiguous_meta(self.sizes(), self.dtype())};
}

// index_copy(self, dim, index, source): source's slices written at index along dim.
std::vector<TensorMeta> index_copy_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const Tensor& index = args.tensor("index");
  const Tensor& source = args.tensor("source");
  const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
  XPORT_CHECK(index.dtype() == DType::Int64, InvalidInput, args.name(),
              ": index must be int64, got ", dtype_name(index.dtype()));
  XPORT_CHECK(index.dim() <= 1, InvalidInput, args.name(),
              ": index must be a vector (1-D or 0-D), got shape ", shape_str(index.sizes()));
  XPORT_CHECK(source.dtype() == self.dtype(), InvalidInput, args.name(),
              ": self and source must have the same dtype, got ", dtype_name(self.dtype()),
              " and ", dtype_name(source.dtype()), "; convert source with .to(dtype)");
  bool fits = source.dim() == self.dim() || (self.dim() <= 1 && source.dim() <= 1);
  for (int64_t d = 0; fits && d < source.dim() && self.dim() > 0; ++d) {
    fits = d == dim ? static_cast<bool>(source.size(d) == index.numel())
                    : static_cast<bool>(source.size(d) == self.size(d));
  }
  if (self.dim() > 0 && source.dim() == 0) fits = static_cast<bool>(index.numel() == 1);
  XPORT_CHECK(fits, InvalidInput, args.name(), ": source of shape ", shape_str(source.sizes()),
              " must match self ", shape_str(self.sizes()), " in every dim but dim ", dim,
              ", and have index's ", index.numel(), " slices along it");
  return {contiguous_meta(self.sizes(), self.dtype())};
}

std::vector<TensorMeta> index_select_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const Tensor& index = args.tensor("index");
  const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
  XPORT_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, InvalidInput,
              args.name(), ": index must be int64 or int32, got ", dtype_name(index.dtype()));
  XPORT_CHECK(index.dim() <= 1, InvalidInput, args.name(),
              ": index must be a vector (1-D or 0-D), got shape ", shape_str(index.sizes()));
  std::vector<SymInt> sizes = self.sizes();
  if (self.dim() > 0) sizes[dim] = index.numel();
  return {contiguous_meta(std::move(sizes), self.dtype())};
}

std::vector<TensorMeta> gather_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const Tensor& index = args.tensor("index");
  const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
  check_gather_index(args, self, index);
  for (int64_t d = 0; d < nonempty_dim(self); ++d) {
    XPORT_CHECK(d == dim || static_cast<bool>(nonempty_size(index, d) <= nonempty_size(self, d)),
                InvalidInput, args.name(), ": index ", shape_str(index.sizes()),
                " must be no larger than self ", shape_str(self.sizes()), " in every dim but dim ",
                dim);
  }
  return {contiguous_meta(index.sizes(), self.dtype())};
}

}  // namespace

void index_select_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out) {
  cpu::index_select_out(self, wrap_dim("aten::index_select", dim, self.dim()), index, out,
                        "aten::index_select");
}
void gather_out(const Tensor& self, int64_t dim, const Tensor& index, bool, const Tensor& out) {
  cpu::gather_out(self, wrap_dim("aten::gather", dim, self.dim()), index, out, "aten::gather");
}
namespace {
// None indices are undefined tensors to the kernels; masks become the indices of their true
// elements.
std::vector<Tensor> kernel_indices(const std::vector<std::optional<Tensor>>& indices) {
  std::vector<Tensor> tensors;
  for (const std::optional<Tensor>& t : indices) tensors.push_back(t.value_or(Tensor()));
  return cpu::expand_masks(tensors);
}
}  // namespace
// Where the result's sizes are planned (integer indices): a mask's result is sized by its data,
// so eager execution and the runtime run index_eager for it.
void index_out(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
               const Tensor& out) {
  cpu::index_out(self, kernel_indices(indices), out, "aten::index.Tensor");
}
void index_put_out(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                   const Tensor& values, bool accumulate, const Tensor& out) {
  cpu::index_put_out(self, kernel_indices(indices), values, accumulate, out, "aten::index_put");
}
void index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const Tensor& out) {
  cpu::index_copy_out(self, wrap_dim("aten::index_copy", dim, self.dim()), index, source, out,
                      "aten::index_copy");
}
// In place (`out` is self): operands sharing self's memory in another layout are read from
// copies.
void index_put__out(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                    const Tensor& values, bool accumulate, const Tensor& out) {
  index_put_out(self, indices, unaliased(self, values), accumulate, out);
}
void index_copy__out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                     const Tensor& out) {
  index_copy_out(self, dim, unaliased(self, index), unaliased(self, source), out);
}

namespace {

// gather / index_select: each gradient element added back where its value came from.
void gather_derivative(Backward& b) {
  const OpArgs& a = b.args();
  b.set("self", scatter_add(zeros_like(a.tensor("self")), a.integer("dim"), a.tensor("index"),
                            b.grad()));
}

void index_select_derivative(Backward& b) {
  const OpArgs& a = b.args();
  const Tensor g = b.grad();
  if (g.dim() == 0) return b.set("self", g.reshape(a.tensor("self").sizes()));
  const int64_t dim = wrap_dim(a, a.integer("dim"), g.dim());
  std::vector<SymInt> shape(g.dim(), SymInt(1));
  shape[dim] = g.sizes()[dim];
  const Tensor index = a.tensor("index").reshape(shape).expand(g.sizes());
  b.set("self", scatter_add(zeros_like(a.tensor("self")), dim, index, g));
}

}  // namespace

void register_index_ops() {
  register_op({
      .schema = "aten::index_select(Tensor self, int dim, Tensor index) -> Tensor",
      .meta = index_select_meta,
      .kernel = XPORT_OP_KERNEL(index_select_out),
      .derivative = index_select_derivative,
      .core = true,
  });
  register_op({
      .schema = "aten::gather(Tensor self, int dim, Tensor index, *, bool "
                "sparse_grad=False) -> Tensor",
      .meta = gather_meta,
      .kernel = XPORT_OP_KERNEL(gather_out),
      .derivative = gather_derivative,
      .core = true,
  });
  register_op({
      .schema = "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
      .meta = index_meta,
      .kernel = XPORT_OP_KERNEL(index_out),
      .cpu_alloc = index_eager,
      .core = true,
  });
  register_op({
      .schema = "aten::index_put(Tensor self, Tensor?[] indices, Tensor "
                "values, bool accumulate=False) -> Tensor",
      .meta = index_put_meta,
      .kernel = XPORT_OP_KERNEL(index_put_out),
      .core = true,
  });
  register_inplace(
      "aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, "
      "bool accumulate=False) -> Tensor(a!)",
      find_op("aten::index_put"), XPORT_OP_KERNEL(index_put__out));
  // Not core: an index_put with the index at `dim`, as PyTorch decomposes it.
  const OpDef& index_copy = register_op({
      .schema = "aten::index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
      .meta = index_copy_meta,
      .kernel = XPORT_OP_KERNEL(index_copy_out),
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
            std::vector<Tensor> indices(static_cast<size_t>(dim));
            const Tensor& index = args.tensor("index");
            indices.push_back(index.dim() == 0 ? index.unsqueeze(0) : index);
            return call_tensors(find_op("aten::index_put"),
                                {self, indices, args["source"], false});
          },
  });
  register_inplace(
      "aten::index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)",
      index_copy, XPORT_OP_KERNEL(index_copy__out));
  // The output's size depends on the data: the kernel allocates it; the meta function gives
  // capture an unbacked symbol for it.
  register_op({
      .schema = "aten::nonzero(Tensor self) -> Tensor",
      .meta = nonzero_meta,
      .cpu_alloc =
          [](const OpArgs& args) {
            return std::vector<Tensor>{kernels::cpu::nonzero(args.tensor("self"))};
          },
      .core = true,
  });
}

}  // namespace xport::ops
