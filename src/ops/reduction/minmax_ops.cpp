// amax/amin, max/min (full and along a dim, with indices) and argmax/argmin. NaN counts as the
// maximum and the minimum; ties go to the first occurrence.
#include "kernels/cpu/reduce.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/typed_kernel.h"
#include "xport/ops/functions.h"

namespace xport::ops {

namespace cpu = kernels::cpu;

namespace {

// Every dim of self (none for a 0-dim self).
std::vector<int64_t> every_dim(std::string_view op, const Tensor& self) {
  return wrap_dims(op, {}, self.dim());
}
// One dim as a list: the wrapped dim, or nothing for a 0-dim self.
std::vector<int64_t> one_dim(std::string_view op, const Tensor& self, int64_t dim) {
  const int64_t d = wrap_dim(op, dim, self.dim());
  if (self.dim() == 0) return {};
  return {d};
}
// argmax/argmin's dims: the one dim, or (dim None) every dim.
std::vector<int64_t> arg_dims(std::string_view op, const Tensor& self,
                              std::optional<int64_t> dim) {
  return dim ? one_dim(op, self, *dim) : every_dim(op, self);
}

}  // namespace

void amax_out(const Tensor& self, const std::vector<int64_t>& dim, bool, const Tensor& out) {
  cpu::amax_out(self, wrap_dims("aten::amax", dim, self.dim()), out);
}
void amin_out(const Tensor& self, const std::vector<int64_t>& dim, bool, const Tensor& out) {
  cpu::amin_out(self, wrap_dims("aten::amin", dim, self.dim()), out);
}
void max_dim_out(const Tensor& self, int64_t dim, bool, const Tensor& values,
                 const Tensor& indices) {
  cpu::max_with_indices_out(self, one_dim("aten::max.dim", self, dim), values, indices);
}
void min_dim_out(const Tensor& self, int64_t dim, bool, const Tensor& values,
                 const Tensor& indices) {
  cpu::min_with_indices_out(self, one_dim("aten::min.dim", self, dim), values, indices);
}
void max_out(const Tensor& self, const Tensor& out) {
  cpu::amax_out(self, every_dim("aten::max", self), out);
}
void min_out(const Tensor& self, const Tensor& out) {
  cpu::amin_out(self, every_dim("aten::min", self), out);
}
void argmax_out(const Tensor& self, std::optional<int64_t> dim, bool, const Tensor& out) {
  cpu::max_with_indices_out(self, arg_dims("aten::argmax", self, dim), Tensor(), out);
}
void argmin_out(const Tensor& self, std::optional<int64_t> dim, bool, const Tensor& out) {
  cpu::min_with_indices_out(self, arg_dims("aten::argmin", self, dim), Tensor(), out);
}

namespace {

std::vector<TensorMeta> one(std::vector<SymInt> sizes, DType dtype) {
  return {contiguous_meta(std::move(sizes), dtype)};
}

std::vector<int64_t> all_dims(const OpArgs& args) {
  return wrap_dims(args, {}, args.tensor("self").dim());
}

void check_not_empty(const OpArgs& args) {
  XPORT_CHECK(!static_cast<bool>(args.tensor("self").numel() == 0), InvalidInput, args.name(),
              ": Expected reduction dim to be specified for input.numel() == 0 (shape ",
              shape_str(args.tensor("self").sizes()), "); pass a dim, or use amax/amin with a dim");
}

// The gradient goes to the elements equal to the extremum, shared equally among ties.
void amax_derivative(Backward& b) {
  const Tensor& self = b.args().tensor("self");
  std::vector<int64_t> dims = reduction_dims(b.args(), "dim");
  if (dims.empty()) dims = all_dims(b.args());
  const bool keepdim = b.args().boolean("keepdim");
  const Tensor mask = self.eq(expand_reduced(b.result(), self, dims, keepdim));
  const Tensor counts = mask.sum(dims, true);
  b.set("self", expand_reduced(b.grad(), self, dims, keepdim) / counts * mask);
}

// max.dim / min.dim: the gradient goes to the element each index names.
void max_dim_derivative(Backward& b) {
  const Tensor& self = b.args().tensor("self");
  const std::vector<int64_t> dims = single_dim(b.args(), b.args().integer("dim"));
  if (dims.empty()) return b.set("self", b.grad());  // a 0-dim self
  Tensor g = b.grad(), index = b.result(1);
  if (!b.args().boolean("keepdim")) {
    g = g.unsqueeze(dims[0]);
    index = index.unsqueeze(dims[0]);
  }
  b.set("self", scatter(zeros_like(self), dims[0], index, g));
}

void register_amax_amin(const char* schema, const OpKernel& kernel) {
  register_op({
      .schema = schema,
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const std::vector<int64_t> dims = reduction_dims(args, "dim");
            check_nonempty_dims(args, self, dims);
            return one(reduced_sizes(self, dims, args.boolean("keepdim")), self.dtype());
          },
      .kernel = kernel,
      .derivative = amax_derivative,
      .core = true,
  });
}

void register_max_dim(const char* schema, const OpKernel& kernel) {
  register_op({
      .schema = schema,
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            const std::vector<int64_t> dims = single_dim(args, args.integer("dim"));
            check_nonempty_dims(args, self, dims);
            std::vector<SymInt> sizes = reduced_sizes(self, dims, args.boolean("keepdim"));
            return std::vector<TensorMeta>{contiguous_meta(sizes, self.dtype()),
                                           contiguous_meta(sizes, DType::Int64)};
          },
      .kernel = kernel,
      .derivative = max_dim_derivative,
      .core = true,
  });
}

// max()/min() of every element: amax/amin over every dim.
void register_full(const char* schema, const char* decomposed_to, const OpKernel& kernel) {
  const OpDef* target = &find_op(decomposed_to);  // registered just before
  register_op({
      .schema = schema,
      .meta =
          [](const OpArgs& args) {
            check_not_empty(args);
            return one({}, args.tensor("self").dtype());
          },
      .kernel = kernel,
      .decomp =
          [target](const OpArgs& args) {
            return std::vector<Tensor>{
                call1(*target, {args.tensor("self"), std::vector<int64_t>{}, false})};
          },
  });
}

// argmax/argmin: over one dim, or (dim None) over the flattened tensor.
void register_arg(const char* schema, const OpKernel& kernel) {
  const auto dims_of = [](const OpArgs& args) {
    const std::optional<int64_t> dim = args.optional_int("dim");
    return dim ? single_dim(args, *dim) : all_dims(args);
  };
  register_op({
      .schema = schema,
      .meta =
          [dims_of](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            XPORT_CHECK(self.dtype() != DType::Bool, InvalidInput, args.name(),
                        ": bool tensors are not supported (as in PyTorch); convert to an integer "
                        "dtype first");
            if (!args.optional_int("dim")) check_not_empty(args);
            const std::vector<int64_t> dims = dims_of(args);
            check_nonempty_dims(args, self, dims);
            return one(reduced_sizes(self, dims, args.boolean("keepdim")), DType::Int64);
          },
      .kernel = kernel,
      .core = true,
  });
}

}  // namespace

void register_minmax_ops() {
  register_amax_amin("aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
                     XPORT_OP_KERNEL(amax_out));
  register_amax_amin("aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
                     XPORT_OP_KERNEL(amin_out));
  register_max_dim(
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      XPORT_OP_KERNEL(max_dim_out));
  register_max_dim(
      "aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      XPORT_OP_KERNEL(min_dim_out));
  register_full("aten::max(Tensor self) -> Tensor", "aten::amax", XPORT_OP_KERNEL(max_out));
  register_full("aten::min(Tensor self) -> Tensor", "aten::amin", XPORT_OP_KERNEL(min_out));
  register_arg("aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
               XPORT_OP_KERNEL(argmax_out));
  register_arg("aten::argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
               XPORT_OP_KERNEL(argmin_out));
}

}  // namespace xport::ops
