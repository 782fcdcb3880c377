// Ordering ops: sort (stable), sort.stable and topk. NaN sorts as the largest
// value.
#include "kernels/cpu/sort.h"
#include "ops/shape/shape_ops.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

std::vector<TensorMeta> values_and_indices(const Tensor& self, std::vector<SymInt> sizes) {
  return {contiguous_meta(sizes, self.dtype()), contiguous_meta(sizes, DType::Int64)};
}

std::vector<TensorMeta> topk_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const SymInt k = args.sym_int("k");
  const int64_t dim = wrap_dim(args, args.integer("dim"), self.dim());
  XPORT_CHECK(self.dtype() != DType::Bool, InvalidInput, args.name(),
              ": bool tensors are not supported; convert to uint8 or int first");
  const SymInt size = self.dim() == 0 ? SymInt(1) : self.sizes()[dim];
  XPORT_CHECK(static_cast<bool>(k >= 0) && static_cast<bool>(k <= size), InvalidInput, args.name(),
              ": k (", k, ") must be in [0, ", size, "], the size of dim ", dim);
  std::vector<SymInt> sizes = self.sizes();
  if (self.dim() > 0) sizes[dim] = k;
  return values_and_indices(self, std::move(sizes));
}

}  // namespace

void sort_out(const Tensor& self, int64_t dim, bool descending, const Tensor& values,
              const Tensor& indices) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim("aten::sort", dim, self.dim());
  cpu::sort_out(self, d, descending, values, indices);
}
void topk_out(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
              const Tensor& values, const Tensor& indices) {
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim("aten::topk", dim, self.dim());
  // A 0-dim self gives its one element whatever k (0 or 1) is, as PyTorch does.
  cpu::topk_out(self, self.dim() == 0 ? 1 : k, d, largest, sorted, values, indices);
}

void register_sort_ops() {
  // The kernel is stable, so sort.stable's decomposition to sort keeps its
  // promise.
  register_op({
      .schema = "aten::sort(Tensor self, int dim=-1, bool descending=False) -> "
                "(Tensor values, Tensor indices)",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            wrap_dim(args, args.integer("dim"), self.dim());
            return values_and_indices(self, self.sizes());
          },
      .kernel = XPORT_OP_KERNEL(sort_out),
      .core = true,
  });
  register_op({
      .schema = "aten::sort.stable(Tensor self, *, bool? stable, int dim=-1, "
                "bool descending=False) "
                "-> (Tensor values, Tensor indices)",
      .decomp =
          [](const OpArgs& args) {
            return call_tensors(XPORT_OP("aten::sort"),
                                {args.tensor("self"), args["dim"], args["descending"]});
          },
  });
  register_op({
      .schema = "aten::topk(Tensor self, SymInt k, int dim=-1, bool "
                "largest=True, bool sorted=True) "
                "-> (Tensor values, Tensor indices)",
      .meta = topk_meta,
      .kernel = XPORT_OP_KERNEL(topk_out),
      .core = true,
  });
}

}  // namespace xport::ops
