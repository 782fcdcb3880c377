// Ops about values the data decides: item (a tensor's value as a scalar), _assert_scalar (a
// condition checked when the program runs) and masked_select (an output whose size the mask's
// values decide). Under capture their data-dependent values are unbacked symbols.
#include <cstring>

#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

std::vector<TensorMeta> item_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(self.numel().maybe_int() == std::optional<int64_t>(1), InvalidInput, args.name(),
              ": a tensor with ", self.numel(),
              " elements cannot be converted to a scalar; it needs exactly one element");
  return {contiguous_meta({}, self.dtype())};
}

std::vector<TensorMeta> no_outputs(const OpArgs&) { return {}; }

void check_mask(const OpArgs& args) {
  XPORT_CHECK(args.tensor("mask").dtype() == DType::Bool, InvalidInput, args.name(),
              ": mask must be a bool tensor, got ", dtype_name(args.tensor("mask").dtype()));
}

std::vector<TensorMeta> masked_select_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const Tensor& mask = args.tensor("mask");
  check_mask(args);
  const std::vector<SymInt> shape = broadcast_shapes(args, self.sizes(), mask.sizes());
  return {contiguous_meta({data_dependent_size(args, 0, numel_bound(shape))}, self.dtype())};
}

// self and mask broadcast together, then the elements where mask holds, in row-major order.
std::vector<Tensor> masked_select_eager(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const Tensor& mask = args.tensor("mask");
  check_mask(args);
  const std::vector<SymInt> shape = broadcast_shapes(args, self.sizes(), mask.sizes());
  return {call1(XPORT_OP("aten::index.Tensor"),
                {self.expand(shape), std::vector<Tensor>{mask.expand(shape)}})};
}

}  // namespace

void item_out(const Tensor& self, const Tensor& out) {
  std::memcpy(out.raw_data(), self.raw_data(), out.element_size());
}
void _assert_scalar_out(const Scalar& self, const std::string& assert_msg) {
  XPORT_CHECK(self.to_bool(), InvalidInput, assert_msg);
}

void register_data_dependent_ops() {
  register_op({
      .schema = "aten::item(Tensor self) -> Scalar",
      .meta = item_meta,
      .kernel = XPORT_OP_KERNEL(item_out),
      .core = true,
  });
  // PyTorch's core form of item, which its archives hold as well.
  register_op({
      .schema = "aten::_local_scalar_dense(Tensor self) -> Scalar",
      .meta = item_meta,
      .kernel = XPORT_OP_KERNEL(item_out),
      .core = true,
  });
  register_op({
      .schema = "aten::_assert_scalar(Scalar self, str assert_msg) -> ()",
      .meta = no_outputs,
      .kernel = XPORT_OP_KERNEL(_assert_scalar_out),
      .core = true,
      .tags = {Tag::RuntimeAssert},
  });
  register_op({
      .schema = "aten::masked_select(Tensor self, Tensor mask) -> Tensor",
      .meta = masked_select_meta,
      .cpu_alloc = masked_select_eager,
      .core = true,
  });
}

}  // namespace xport::ops
