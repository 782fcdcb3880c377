// Pairwise distances: _cdist_forward (torch.cdist) and _pdist_forward (torch.pdist).
#include "kernels/cpu/distance.h"
#include "ops/linalg/linalg_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

void check_norm(const OpArgs& args, double p, const Tensor& t, const char* what) {
  XPORT_CHECK(p >= 0, InvalidInput, args.name(), ": p value for the p-norm distance must be >= 0, "
              "got ", p);
  XPORT_CHECK(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, InvalidInput,
              args.name(), ": only supports float32 and float64 ", what, ", got ",
              dtype_name(t.dtype()), "; convert it with .to(float32)");
}

std::vector<TensorMeta> cdist_meta(const OpArgs& args) {
  const Tensor& x1 = args.tensor("x1");
  const Tensor& x2 = args.tensor("x2");
  check_norm(args, args.real("p"), x1, "x1");
  XPORT_CHECK(x1.dim() >= 2 && x2.dim() >= 2, InvalidInput, args.name(),
              ": x1 and x2 need at least 2 dims ([..., rows, features]), got ",
              shape_str(x1.sizes()), " and ", shape_str(x2.sizes()));
  XPORT_CHECK(x1.dtype() == x2.dtype(), InvalidInput, args.name(),
              ": x1 and x2 must have the same dtype, got ", dtype_name(x1.dtype()), " and ",
              dtype_name(x2.dtype()));
  XPORT_CHECK(static_cast<bool>(x1.sizes().back() == x2.sizes().back()), InvalidInput,
              args.name(), ": x1 and x2 must have the same number of columns, got ",
              x1.sizes().back(), " and ", x2.sizes().back());
  const std::vector<SymInt> batch1(x1.sizes().begin(), x1.sizes().end() - 2);
  const std::vector<SymInt> batch2(x2.sizes().begin(), x2.sizes().end() - 2);
  std::vector<SymInt> sizes = broadcast_shapes(args, batch1, batch2);
  sizes.push_back(x1.sizes()[x1.dim() - 2]);
  sizes.push_back(x2.sizes()[x2.dim() - 2]);
  return {contiguous_meta(std::move(sizes), x1.dtype())};
}

}  // namespace

void _cdist_forward_out(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t>,
                        const Tensor& out) {
  // Both sets broadcast to the result's batch, flattened to one batch dim.
  const std::vector<SymInt>& sizes = out.sizes();
  const std::vector<SymInt> batch(sizes.begin(), sizes.end() - 2);
  auto batched = [&](const Tensor& x) {
    std::vector<SymInt> shape = batch;
    shape.push_back(x.sizes()[x.dim() - 2]);
    shape.push_back(x.sizes().back());
    return x.expand(shape).contiguous().reshape({-1, shape[shape.size() - 2], shape.back()});
  };
  kernels::cpu::cdist_out(batched(x1), batched(x2), p,
                          out.reshape({-1, sizes[sizes.size() - 2], sizes.back()}));
}

void _pdist_forward_out(const Tensor& self, double p, const Tensor& out) {
  kernels::cpu::pdist_out(self.contiguous(), p, out);
}

void register_distance_ops() {
  register_op({
      .schema = "aten::_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor",
      .meta = cdist_meta,
      .kernel = XPORT_OP_KERNEL(_cdist_forward_out),
      .core = true,
  });
  register_op({
      .schema = "aten::_pdist_forward(Tensor self, float p=2.) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            check_norm(args, args.real("p"), self, "input");
            XPORT_CHECK(self.dim() == 2, InvalidInput, args.name(),
                        ": pdist only supports 2-D tensors ([rows, features]), got ",
                        shape_str(self.sizes()));
            const SymInt& n = self.sizes()[0];
            return std::vector<TensorMeta>{
                contiguous_meta({n * (n - 1) / 2}, self.dtype())};
          },
      .kernel = XPORT_OP_KERNEL(_pdist_forward_out),
      .core = true,
  });
}

}  // namespace xport::ops
