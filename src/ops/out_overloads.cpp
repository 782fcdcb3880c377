// ATen's out= overloads (`atan2.out(Tensor self, Tensor other, *, Tensor(a!) out)`), made from
// the functional op they write: its meta function checks `out` against the result, and capture
// records the functional op (the tracer passes it the arguments it names). Unlike PyTorch, `out`
// is not resized: it must already have the result's shape.

#include "kernels/cpu/elementwise.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

// The functional op's arguments, taken by name from the out= overload's.
OpArgs functional_args(const OpDef& functional, const OpArgs& args) {
  std::vector<Value> values;
  for (const Argument& a : functional.parsed.arguments) values.push_back(args[a.name]);
  return bind_args(functional, std::move(values));
}

void register_out_overload(const std::string& schema, const std::string& functional_name,
                           OpKernel kernel) {
  const OpDef& functional = find_op(functional_name);
  const MetaFn meta = [&functional](const OpArgs& args) {
    const Tensor& out = args.tensor("out");
    const TensorMeta result = functional.meta(functional_args(functional, args)).at(0);
    XPORT_CHECK(out.sizes() == result.sizes, InvalidInput, args.name(), ": out has shape ",
                shape_str(out.sizes()), " but the result has shape ", shape_str(result.sizes),
                "; pass an out tensor of the result's shape (xport does not resize out)");
    XPORT_CHECK(can_cast(result.dtype, out.dtype()), InvalidInput, args.name(),
                ": the result is ", dtype_name(result.dtype), ", which cannot be written to out's ",
                dtype_name(out.dtype()));
    return std::vector<TensorMeta>{out.meta()};
  };
  const OpDef& op =
      register_op({.schema = schema, .meta = meta, .kernel = std::move(kernel), .core = true});
  xport::detail::update_op(op.qualified_name,
                           [&functional](OpDef& def) { def.functional = &functional; });
}

}  // namespace

// The result is `out` itself (the op updates it in place), cast from the functional result.
void atan2_out_out(const Tensor& self, const Tensor& other, const Tensor&, const Tensor& result) {
  kernels::cpu::copy_into(result, call1(XPORT_OP("aten::atan2"), {self, other}));
}

void register_out_overloads() {
  register_out_overload(
      "aten::atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::atan2", XPORT_OP_KERNEL(atan2_out_out));
}

}  // namespace xport::ops
