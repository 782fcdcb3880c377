// amax/amin, max/min (full and along a dim, with indices) and argmax/argmin. NaN counts as the
// maximum and the minimum; ties go to the first occurrence.
#include "kernels/cpu/reduce.h"
#include "ops/reduction/reduction_ops.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

std::vector<TensorMeta> one(std::vector<SymInt> sizes, DType dtype) {
  return {contiguous_meta(std::move(sizes), dtype)};
}

std::vector<int64_t> all_dims(const OpArgs& args) {
  return wrap_dims(args, {}, args.tensor(0).dim());
}

void check_not_empty(const OpArgs& args) {
  XPORT_CHECK(!static_cast<bool>(args.tensor(0).numel() == 0), InvalidInput, args.name(),
              ": Expected reduction dim to be specified for input.numel() == 0 (shape ",
              shape_str(args.tensor(0).sizes()), "); pass a dim, or use amax/amin with a dim");
}

void register_amax_amin(const char* schema,
                        void (*kernel)(const Tensor&, const std::vector<int64_t>&, const Tensor&)) {
  register_op({
      .schema = schema,
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor(0);
            const std::vector<int64_t> dims = reduction_dims(args, 1);
            check_nonempty_dims(args, self, dims);
            return one(reduced_sizes(self, dims, args.boolean(2)), self.dtype());
          },
      .cpu =
          [kernel](const OpArgs& args, std::vector<Tensor>& outs) {
            kernel(args.tensor(0), reduction_dims(args, 1), outs[0]);
          },
      .core = true,
  });
}

using WithIndicesKernel = void (*)(const Tensor&, const std::vector<int64_t>&, const Tensor&,
                                   const Tensor&);

void register_max_dim(const char* schema, WithIndicesKernel kernel) {
  register_op({
      .schema = schema,
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor(0);
            const std::vector<int64_t> dims = single_dim(args, args.integer(1));
            check_nonempty_dims(args, self, dims);
            std::vector<SymInt> sizes = reduced_sizes(self, dims, args.boolean(2));
            return std::vector<TensorMeta>{contiguous_meta(sizes, self.dtype()),
                                           contiguous_meta(sizes, DType::Int64)};
          },
      .cpu =
          [kernel](const OpArgs& args, std::vector<Tensor>& outs) {
            kernel(args.tensor(0), single_dim(args, args.integer(1)), outs[0], outs[1]);
          },
      .core = true,
  });
}

// max()/min() of every element: amax/amin over every dim.
void register_full(const char* schema, const char* decomposed_to,
                   void (*kernel)(const Tensor&, const std::vector<int64_t>&, const Tensor&)) {
  const OpDef* target = &find_op(decomposed_to);  // registered just before
  register_op({
      .schema = schema,
      .meta =
          [](const OpArgs& args) {
            check_not_empty(args);
            return one({}, args.tensor(0).dtype());
          },
      .cpu = [kernel](
                 const OpArgs& args,
                 std::vector<Tensor>& outs) { kernel(args.tensor(0), all_dims(args), outs[0]); },
      .decomp =
          [target](const OpArgs& args) {
            return std::vector<Tensor>{
                call1(*target, {args.tensor(0), std::vector<int64_t>{}, false})};
          },
  });
}

// argmax/argmin: over one dim, or (dim None) over the flattened tensor.
void register_arg(const char* schema, WithIndicesKernel kernel) {
  const auto dims_of = [](const OpArgs& args) {
    const std::optional<int64_t> dim = args.optional_int(1);
    return dim ? single_dim(args, *dim) : all_dims(args);
  };
  register_op({
      .schema = schema,
      .meta =
          [dims_of](const OpArgs& args) {
            const Tensor& self = args.tensor(0);
            XPORT_CHECK(self.dtype() != DType::Bool, InvalidInput, args.name(),
                        ": bool tensors are not supported (as in PyTorch); convert to an integer "
                        "dtype first");
            if (!args.optional_int(1)) check_not_empty(args);
            const std::vector<int64_t> dims = dims_of(args);
            check_nonempty_dims(args, self, dims);
            return one(reduced_sizes(self, dims, args.boolean(2)), DType::Int64);
          },
      .cpu =
          [kernel, dims_of](const OpArgs& args, std::vector<Tensor>& outs) {
            kernel(args.tensor(0), dims_of(args), Tensor(), outs[0]);
          },
      .core = true,
  });
}

}  // namespace

void register_minmax_ops() {
  register_amax_amin("aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
                     cpu::amax_out);
  register_amax_amin("aten::amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
                     cpu::amin_out);
  register_max_dim(
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      cpu::max_with_indices_out);
  register_max_dim(
      "aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      cpu::min_with_indices_out);
  register_full("aten::max(Tensor self) -> Tensor", "aten::amax", cpu::amax_out);
  register_full("aten::min(Tensor self) -> Tensor", "aten::amin", cpu::amin_out);
  register_arg("aten::argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
               cpu::max_with_indices_out);
  register_arg("aten::argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
               cpu::min_with_indices_out);
}

}  // namespace xport::ops
