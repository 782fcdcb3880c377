// Dropout: native_dropout draws a fresh random mask on every call (eagerly, and each time an
// exported program runs, as in PyTorch); dropout is native_dropout in training mode and a copy
// otherwise.
#include "kernels/cpu/dropout.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

void check_probability(const OpArgs& args) {
  const double p = args.real("p");
  XPORT_CHECK(p >= 0.0 && p <= 1.0, InvalidInput, args.name(),
              ": dropout probability has to be between 0 and 1, but got ", p);
}

// native_dropout(input, p, train) -> (output, mask)
std::vector<TensorMeta> native_dropout_meta(const OpArgs& args) {
  check_probability(args);
  const Tensor& input = args.tensor("input");
  XPORT_CHECK(is_floating(input.dtype()), InvalidInput, args.name(),
              ": needs a floating point input, got ", dtype_name(input.dtype()));
  return {contiguous_meta(input.sizes(), input.dtype()),
          contiguous_meta(input.sizes(), DType::Bool)};
}

}  // namespace

void native_dropout_out(const Tensor& input, double p, std::optional<bool> train,
                        const Tensor& output, const Tensor& mask) {
  if (!train.value_or(true)) {
    Tensor(output).copy_(input);
    Tensor(mask).fill_(true);
    return;
  }
  kernels::cpu::dropout_out(input, p, output, mask);
}

namespace {

// The kept elements pass the gradient, scaled as their values were (ATen's
// native_dropout_backward); in evaluation every element is kept, unscaled.
void native_dropout_derivative(Backward& b) {
  const OpArgs& a = b.args();
  const bool train = a.optional_bool("train").value_or(true);
  const double p = a.real("p");
  const double scale = !train ? 1.0 : p >= 1 ? 0.0 : 1.0 / (1.0 - p);
  b.set("input", b.grad() * b.result(1) * scale);
}

}  // namespace

void register_dropout_ops() {
  const OpDef& native_dropout = register_op({
      .schema = "aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)",
      .meta = native_dropout_meta,
      .kernel = XPORT_OP_KERNEL(native_dropout_out),
      .derivative = native_dropout_derivative,
      .core = true,
      .tags = {Tag::NondeterministicSeeded},
  });
  register_op({
      .schema = "aten::dropout(Tensor input, float p, bool train) -> Tensor",
      .decomp =
          [&native_dropout](const OpArgs& args) {
            check_probability(args);
            if (args.boolean("train") && args.real("p") > 0) {
              return std::vector<Tensor>{
                  call_tensors(native_dropout, {args["input"], args["p"], true})[0]};
            }
            return std::vector<Tensor>{call1(XPORT_OP("aten::clone"), {args["input"]})};
          },
  });
  // nn.Dropout(inplace=True): in evaluation (or with p = 0) self is returned untouched.
  register_op({
      .schema = "aten::dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)",
      .decomp =
          [&native_dropout](const OpArgs& args) {
            check_probability(args);
            Tensor self = args.tensor("self");
            if (args.boolean("train") && args.real("p") > 0)
              self.copy_(call_tensors(native_dropout, {self, args["p"], true})[0]);
            return std::vector<Tensor>{self};
          },
  });
}

}  // namespace xport::ops
