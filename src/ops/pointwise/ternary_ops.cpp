// Pointwise ops with three operands: where, clamp, masked_fill.
#include <utility>

#include "kernels/cpu/index.h"
#include "kernels/cpu/pointwise.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

void check_condition(const OpArgs& args, const Tensor& cond, const char* what) {
  XPORT_CHECK(cond.dtype() == DType::Bool, InvalidInput, args.name(), ": ", what,
              " must be a bool tensor, got ", dtype_name(cond.dtype()),
              "; compare it first (e.g. x.gt(0)) or convert with .to(DType::Bool)");
}

// A clamp bound: a Scalar becomes a 0-dim tensor of the result dtype; None stays undefined.
Tensor bound(const std::optional<Scalar>& s, DType dtype) {
  if (!s) return Tensor();
  return cpu::scalar_tensor(*s, dtype);
}

DType clamp_dtype(const OpArgs& args) {
  ResultType rt;
  rt.tensor(args.tensor("self"));
  for (const char* name : {"min", "max"}) {
    if (args[name].is_tensor())
      rt.tensor(args.tensor(name));
    else if (!args[name].is_none())
      rt.scalar(args.scalar(name));
  }
  return rt.get();
}

std::vector<TensorMeta> clamp_meta(const OpArgs& args) {
  XPORT_CHECK(!args["min"].is_none() || !args["max"].is_none(), InvalidInput, args.name(),
              ": at least one of 'min' or 'max' must not be None");
  const Tensor& self = args.tensor("self");
  XPORT_CHECK(self.dtype() != DType::Bool, InvalidInput, args.name(),
              ": not supported for bool tensors");
  std::vector<SymInt> sizes = self.sizes();
  for (const char* name : {"min", "max"}) {
    if (args[name].is_tensor()) sizes = broadcast_shapes(args, sizes, args.tensor(name).sizes());
  }
  return {contiguous_meta(std::move(sizes), clamp_dtype(args))};
}

std::vector<TensorMeta> masked_fill_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const Tensor& mask = args.tensor("mask");
  check_condition(args, mask, "mask");
  const std::vector<SymInt> b = broadcast_shapes(args, self.sizes(), mask.sizes());
  XPORT_CHECK(b.size() == self.sizes().size(), InvalidInput, args.name(), ": mask of shape ",
              shape_str(mask.sizes()), " must broadcast to self's shape ", shape_str(self.sizes()));
  if (args["value"].is_tensor()) {
    XPORT_CHECK(args.tensor("value").dim() == 0, InvalidInput, args.name(),
                ": only supports a 0-dimensional value tensor, got ", args.tensor("value").dim(),
                " dims");
  }
  return {contiguous_meta(self.sizes(), self.dtype())};
}

std::vector<TensorMeta> masked_scatter_meta(const OpArgs& args) {
  const Tensor& self = args.tensor("self");
  const Tensor& source = args.tensor("source");
  check_condition(args, args.tensor("mask"), "mask");
  XPORT_CHECK(source.dtype() == self.dtype(), InvalidInput, args.name(),
              ": expected self and source to have the same dtype, got ", dtype_name(self.dtype()),
              " and ", dtype_name(source.dtype()), "; convert source with .to(self.dtype())");
  return {contiguous_meta(broadcast_shapes(args, self.sizes(), args.tensor("mask").sizes()),
                          self.dtype())};
}

// where with a number for self, other or both: the number becomes a 0-dim tensor of the result
// type (promoted as a wrapped number), which where.self broadcasts.
std::vector<Tensor> where_number_decomp(const OpArgs& args) {
  ResultType type;
  for (const char* name : {"self", "other"}) {
    if (args[name].is_tensor()) {
      type.tensor(args.tensor(name));
    } else {
      type.scalar(args.scalar(name));
    }
  }
  const DType dtype = type.get();
  auto operand = [&](const char* name) {
    return args[name].is_tensor()
               ? args.tensor(name)
               : call1(XPORT_OP("aten::scalar_tensor"), {args[name], dtype});
  };
  return single(call1(XPORT_OP("aten::where.self"),
                      {args["condition"], operand("self"), operand("other")}));
}

}  // namespace

void clamp_out(const Tensor& self, const std::optional<Scalar>& min,
               const std::optional<Scalar>& max, const Tensor& out) {
  ResultType rt;
  rt.tensor(self);
  if (min) rt.scalar(*min);
  if (max) rt.scalar(*max);
  const DType dtype = rt.get();
  cpu::clamp_out(self, bound(min, dtype), bound(max, dtype), out);
}
// An absent bound is an undefined tensor.
void clamp_Tensor_out(const Tensor& self, const std::optional<Tensor>& min,
                      const std::optional<Tensor>& max, const Tensor& out) {
  cpu::clamp_out(self, min.value_or(Tensor()), max.value_or(Tensor()), out);
}
void masked_fill_Scalar_out(const Tensor& self, const Tensor& mask, const Scalar& value,
                            const Tensor& out) {
  cpu::where_out(mask, cpu::scalar_tensor(value, self.dtype()), self, out);
}
void masked_fill_Tensor_out(const Tensor& self, const Tensor& mask, const Tensor& value,
                            const Tensor& out) {
  cpu::where_out(mask, value.to(self.dtype()), self, out);
}

void masked_scatter_out(const Tensor& self, const Tensor& mask, const Tensor& source,
                        const Tensor& out) {
  cpu::masked_scatter_out(self, mask, source, out, "aten::masked_scatter");
}

namespace {

void where_derivative(Backward& b) {
  const Tensor& cond = b.args().tensor("condition");
  const Tensor g = b.grad();
  const Tensor zero = zeros_like(g);
  b.set("self", where(cond, g, zero));
  b.set("other", where(cond, zero, g));
}

// The gradient passes where min <= x <= max (not at NaN); a tensor bound takes it where it
// clamped (where min > max, max wins), as PyTorch's clamp_backward_min_max.
void clamp_derivative(Backward& b) {
  const Tensor& x = b.args().tensor("self");
  const Tensor g = b.grad();
  const Value& min = b.args()["min"];
  const Value& max = b.args()["max"];
  const auto compare = [&](const Value& bound, const char* op) {
    const OpDef& def = bound.is_tensor() ? find_op(std::string("aten::") + op + ".Tensor")
                                         : find_op(std::string("aten::") + op + ".Scalar");
    return call_tensors(def, {x, bound})[0];
  };
  const Tensor zero = zeros_like(g);
  Tensor inside;
  if (!min.is_none()) inside = compare(min, "ge");
  if (!max.is_none()) {
    inside = inside.defined() ? logical_and(inside, compare(max, "le")) : compare(max, "le");
  }
  b.set("self", inside.defined() ? where(inside, g, zero) : g);
  const bool both = min.is_tensor() && max.is_tensor();
  if (min.is_tensor()) {
    const Tensor below = compare(min, "lt");
    b.set("min", where(both ? logical_and(below, min.to_tensor().lt(max.to_tensor())) : below,
                       g, zero));
  }
  if (max.is_tensor()) {
    const Tensor above = compare(max, "gt");
    b.set("max", where(both ? logical_or(above, max.to_tensor().lt(min.to_tensor())) : above,
                       g, zero));
  }
}

}  // namespace

void register_ternary_ops() {
  const OpKernel where = XPORT_KERNEL(cpu::where_out);
  register_op({
      .schema = "aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& cond = args.tensor("condition");
            check_condition(args, cond, "condition");
            const Tensor& a = args.tensor("self");
            const Tensor& b = args.tensor("other");
            std::vector<SymInt> sizes = broadcast_shapes(args, cond.sizes(), a.sizes());
            sizes = broadcast_shapes(args, sizes, b.sizes());
            return std::vector<TensorMeta>{
                contiguous_meta(std::move(sizes), ResultType().tensor(a).tensor(b).get())};
          },
      .kernel = where,
      .derivative = where_derivative,
      .core = true,
  });
  for (const char* schema :
       {"aten::where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
        "aten::where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
        "aten::where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor"}) {
    register_op({.schema = schema, .decomp = where_number_decomp});
  }
  const std::pair<const char*, OpKernel> clamps[] = {
      {"aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
       XPORT_OP_KERNEL(clamp_out)},
      {"aten::clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
       XPORT_OP_KERNEL(clamp_Tensor_out)},
  };
  for (const auto& [schema, kernel] : clamps) {
    register_op({
        .schema = schema,
        .meta = clamp_meta,
        .kernel = kernel,
        .derivative = clamp_derivative,
        .core = true,
        .tags = {Tag::Pointwise},
    });
  }
  register_op({
      .schema = "aten::masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
      .meta = masked_scatter_meta,
      .kernel = XPORT_OP_KERNEL(masked_scatter_out),
      .core = true,
  });
  struct MaskedFill {
    const char* schema;
    const char* in_place;
    OpKernel kernel;
  };
  const MaskedFill masked_fills[] = {
      {"aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
       "aten::masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
       XPORT_OP_KERNEL(masked_fill_Scalar_out)},
      {"aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
       "aten::masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
       XPORT_OP_KERNEL(masked_fill_Tensor_out)},
  };
  for (const auto& [schema, in_place, kernel] : masked_fills) {
    const OpDef& functional = register_op({
        .schema = schema,
        .meta = masked_fill_meta,
        .kernel = kernel,
        .decomp =
            [](const OpArgs& args) {
              const Tensor& self = args.tensor("self");
              const Tensor value =
                  args["value"].is_tensor()
                      ? args.tensor("value").to(self.dtype())
                      : call_tensors(XPORT_OP("aten::scalar_tensor"),
                                     {args["value"], self.dtype()})[0];
              return single(call_tensors(XPORT_OP("aten::where.self"),
                                         {args.tensor("mask"), value, self})[0]);
            },
    });
    // In place, the kernel writes each element of self where it read it (where_out).
    register_inplace(in_place, functional, kernel);
  }
}

}  // namespace xport::ops
