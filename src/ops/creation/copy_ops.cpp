// Copies and conversions: _to_copy, to, clone, copy, copy_, fill, contiguous.
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/pointwise.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

std::vector<TensorMeta> same_shape(const Tensor& t, DType dtype) {
  return {contiguous_meta(t.sizes(), dtype)};
}

void check_broadcasts_to(const OpArgs& args, const Tensor& src, const Tensor& self) {
  const std::vector<SymInt> b = broadcast_shapes(args, self.sizes(), src.sizes());
  bool same = b.size() == self.sizes().size();
  for (size_t i = 0; same && i < b.size(); ++i) same = static_cast<bool>(b[i] == self.sizes()[i]);
  XPORT_CHECK(same, InvalidInput, args.name(), ": source of shape ", shape_str(src.sizes()),
              " does not broadcast to the destination's shape ", shape_str(self.sizes()));
}

// The to.* overloads: self itself when it has the dtype and no copy is asked for, else a copy.
std::vector<Tensor> converted(const Tensor& self, DType dtype, bool copy) {
  if (dtype == self.dtype() && !copy) return single(self);
  return call_tensors(XPORT_OP("aten::_to_copy"), {self, dtype});
}

}  // namespace

void _to_copy_out(const Tensor& self, std::optional<DType>, const std::optional<std::string>&,
                  const std::optional<std::string>&, std::optional<bool>, bool,
                  const std::optional<std::string>&, const Tensor& out) {
  cpu::copy_into(out, self);
}
void clone_out(const Tensor& self, const std::optional<std::string>&, const Tensor& out) {
  cpu::copy_into(out, self);
}
void copy_out(const Tensor&, const Tensor& src, bool, const Tensor& out) {
  cpu::copy_into(out, src);
}
void copy__out(const Tensor&, const Tensor& src, bool, const Tensor& out) {
  // Copy through a temporary when source and destination share storage, so an
  // overlapping copy (x.copy_(x.flip(0))) reads every value before it is overwritten.
  const bool overlap = src.storage() == out.storage();
  cpu::copy_into(out, overlap ? src.clone() : src);
}
void fill_Scalar_out(const Tensor&, const Scalar& value, const Tensor& out) {
  cpu::fill_out(value, out);
}
void fill_Tensor_out(const Tensor&, const Tensor& value, const Tensor& out) {
  cpu::fill_out(value.item_scalar(), out);
}

void register_copy_ops() {
  register_op({
      .schema = "aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, "
                "Device? device=None, bool? pin_memory=None, bool non_blocking=False, "
                "MemoryFormat? memory_format=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            return same_shape(self, args.optional_dtype("dtype").value_or(self.dtype()));
          },
      .kernel = XPORT_OP_KERNEL(_to_copy_out),
      .derivative = [](Backward& b) { b.set("self", b.grad()); },  // back to self's dtype
      .core = true,
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, "
                "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
      .decomp =
          [](const OpArgs& args) {
            return converted(args.tensor("self"), args.dtype("dtype"), args.boolean("copy"));
          },
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::type_as(Tensor self, Tensor other) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            return converted(args.tensor("self"), args.tensor("other").dtype(), false);
          },
  });
  // The keyword spelling PyTorch's graphs use for `x.to(dtype)` (device and layout: CPU, strided).
  register_op({
      .schema = "aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? "
                "layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, "
                "bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            return converted(self, args.optional_dtype("dtype").value_or(self.dtype()),
                             args.boolean("copy"));
          },
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::to.device(Tensor(a) self, Device device, ScalarType dtype, "
                "bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> "
                "Tensor(a)",
      .decomp =
          [](const OpArgs& args) {
            const std::string& device = args.str("device");
            XPORT_CHECK(device == "cpu", UnsupportedOp, args.name(), ": device '", device,
                        "'; xport runs on the CPU");
            return converted(args.tensor("self"), args.dtype("dtype"), args.boolean("copy"));
          },
  });
  // A copy of a constant that PyTorch's graphs make before using it (torch.tensor(...) in a
  // forward).
  register_op({
      .schema = "aten::lift_fresh_copy(Tensor self) -> Tensor",
      .decomp = [](const OpArgs& args) { return single(args.tensor("self").clone()); },
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            return same_shape(args.tensor("self"), args.tensor("self").dtype());
          },
      .kernel = XPORT_OP_KERNEL(clone_out),
      .derivative = [](Backward& b) { b.set("self", b.grad()); },
      .core = true,
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) "
                "-> Tensor(a)",
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            if (self.is_contiguous()) return single(self);
            // As reshape: a clone that PyTorch, too, makes contiguous.
            return single(call1(XPORT_OP("aten::clone"), {self, std::string("contiguous_format")}));
          },
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            check_broadcasts_to(args, args.tensor("src"), args.tensor("self"));
            return same_shape(args.tensor("self"), args.tensor("self").dtype());
          },
      .kernel = XPORT_OP_KERNEL(copy_out),
      .derivative =
          [](Backward& b) {  // src's values replace self's
            b.set("self", zeros_like(b.args().tensor("self")));
            b.set("src", b.grad());
          },
      .core = true,
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
      .meta =
          [](const OpArgs& args) {
            check_broadcasts_to(args, args.tensor("src"), args.tensor("self"));
            check_no_internal_overlap(args, args.tensor("self"));
            return std::vector<TensorMeta>{args.tensor("self").meta()};
          },
      .kernel = XPORT_OP_KERNEL(copy__out),
      .takes_complex = true,
  });
  register_op({
      .schema = "aten::fill.Scalar(Tensor self, Scalar value) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            return same_shape(args.tensor("self"), args.tensor("self").dtype());
          },
      .kernel = XPORT_OP_KERNEL(fill_Scalar_out),
      .core = true,
  });
  register_op({
      .schema = "aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
      .meta =
          [](const OpArgs& args) {
            return std::vector<TensorMeta>{args.tensor("self").meta()};
          },
      // `out` is self: the functional kernel fills it.
      .kernel = XPORT_OP_KERNEL(fill_Scalar_out),
      .decomp =
          [](const OpArgs& args) {
            Tensor self = args.tensor("self");
            self.copy_(call_tensors(XPORT_OP("aten::fill.Scalar"), {self, args["value"]})[0]);
            return single(self);
          },
  });
  // fill with a one-element tensor (PyTorch's training IR: `x[:, 0] = 2` is select + fill_.Tensor).
  const OpDef& fill_tensor = register_op({
      .schema = "aten::fill.Tensor(Tensor self, Tensor value) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& value = args.tensor("value");
            XPORT_CHECK(value.dim() == 0, InvalidInput, args.name(),
                        ": fill only supports a 0-dimension value tensor, got one with ",
                        value.dim(), " dimensions; pass value.item() or a scalar instead");
            return same_shape(args.tensor("self"), args.tensor("self").dtype());
          },
      .kernel = XPORT_OP_KERNEL(fill_Tensor_out),
      // copy broadcasts the value over self, in self's dtype: no read of its data.
      .decomp =
          [](const OpArgs& args) {
            return call_tensors(XPORT_OP("aten::copy"), {args.tensor("self"), args["value"]});
          },
  });
  register_inplace("aten::fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)",
                   fill_tensor, XPORT_OP_KERNEL(fill_Tensor_out));
  register_op({
      .schema = "aten::zero_(Tensor(a!) self) -> Tensor(a!)",
      .decomp =
          [](const OpArgs& args) {
            return call_tensors(XPORT_OP("aten::fill_.Scalar"), {args.tensor("self"), int64_t{0}});
          },
  });
}

}  // namespace xport::ops
