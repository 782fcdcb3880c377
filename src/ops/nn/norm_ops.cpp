// Normalization: layer norm, and batch norm in inference mode (running
// statistics).
#include "kernels/cpu/norm.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// ---- layer norm ----

// native_layer_norm(input, normalized_shape, weight, bias, eps)
std::vector<TensorMeta> layer_norm_meta(const OpArgs& args) {
  const Tensor& input = args.tensor(0);
  const std::vector<SymInt>& shape = args.sym_ints(1);
  XPORT_CHECK(!shape.empty(), InvalidInput, args.name(),
              ": normalized_shape must have at least one dim, got []");
  XPORT_CHECK(is_floating(input.dtype()), InvalidInput, args.name(),
              ": needs a floating point input, got ", dtype_name(input.dtype()));
  for (size_t i : {size_t{2}, size_t{3}}) {
    const Tensor t = args.optional_tensor(i);
    if (!t.defined()) continue;
    const char* what = i == 2 ? "weight" : "bias";
    bool same = t.dim() == static_cast<int64_t>(shape.size());
    for (size_t d = 0; same && d < shape.size(); ++d)
      same = static_cast<bool>(t.size(d) == shape[d]);
    XPORT_CHECK(same, InvalidInput, args.name(), ": ", what, " must have normalized_shape ",
                shape_str(shape), ", got ", shape_str(t.sizes()));
    XPORT_CHECK(t.dtype() == input.dtype(), InvalidInput, args.name(), ": ", what, " has dtype ",
                dtype_name(t.dtype()), " but input has ", dtype_name(input.dtype()),
                "; convert them to one dtype");
  }
  const int64_t nd = static_cast<int64_t>(shape.size());
  const int64_t axis = input.dim() - nd;
  bool matches = axis >= 0;
  for (int64_t d = 0; matches && d < nd; ++d)
    matches = static_cast<bool>(input.size(axis + d) == shape[d]);
  XPORT_CHECK(matches, InvalidInput, args.name(), ": normalized_shape ", shape_str(shape),
              " must match the input's trailing dims, got input ", shape_str(input.sizes()));
  std::vector<SymInt> stat_sizes(input.sizes().begin(), input.sizes().begin() + axis);
  stat_sizes.resize(input.sizes().size(), SymInt(1));
  return {contiguous_meta(input.sizes(), input.dtype()), contiguous_meta(stat_sizes, input.dtype()),
          contiguous_meta(stat_sizes, input.dtype())};
}

void layer_norm_kernel(const OpArgs& args, std::vector<Tensor>& outs) {
  int64_t n = 1;
  for (const SymInt& s : args.sym_ints(1)) n *= s.guard_int();
  cpu::layer_norm_out(args.tensor(0), args.optional_tensor(2), args.optional_tensor(3), n,
                      args.real(4), outs[0], outs[1], outs[2]);
}

// ---- batch norm ----

// Checks the per-channel tensors of a batch norm; gives the dtype of the saved
// statistics.
DType check_batch_norm(const OpArgs& args, bool stats_required) {
  const Tensor& input = args.tensor(0);
  XPORT_CHECK(input.dim() >= 2, InvalidInput, args.name(),
              ": needs an input with a batch and a channel dim [N, C, ...], got ",
              shape_str(input.sizes()));
  XPORT_CHECK(is_floating(input.dtype()), InvalidInput, args.name(),
              ": needs a floating point input, got ", dtype_name(input.dtype()));
  const SymInt channels = input.size(1);
  DType param_dtype = input.dtype();
  static const char* const kNames[] = {"", "weight", "bias", "running_mean", "running_var"};
  // ATen checks the running statistics first.
  for (size_t i : {size_t{3}, size_t{4}, size_t{1}, size_t{2}}) {
    const Tensor t = args.optional_tensor(i);
    if (!t.defined()) {
      XPORT_CHECK(!stats_required || i < 3, InvalidInput, args.name(), ": ", kNames[i],
                  " must be defined in evaluation mode (training=False)");
      continue;
    }
    XPORT_CHECK(static_cast<bool>(t.numel() == channels), InvalidInput, args.name(), ": ",
                kNames[i], " should contain ", channels, " elements (the input's channels), not ",
                t.numel());
    const bool reduced = input.dtype() == DType::BFloat16 || input.dtype() == DType::Float16;
    XPORT_CHECK(t.dtype() == input.dtype() || (reduced && t.dtype() == DType::Float32),
                InvalidInput, args.name(), ": ", kNames[i], " has dtype ", dtype_name(t.dtype()),
                " but input has ", dtype_name(input.dtype()), "; convert them to one dtype");
    param_dtype = t.dtype();
  }
  return param_dtype;
}

void check_inference(const OpArgs& args, size_t training) {
  XPORT_CHECK(!args.boolean(training), UnsupportedOp, args.name(),
              ": training mode (batch statistics) is not supported yet; call it with "
              "training=False (eval mode) and running statistics");
}

std::vector<TensorMeta> batch_norm_meta(const OpArgs& args) {
  const Tensor& input = args.tensor(0);
  const DType saved = check_batch_norm(args, true);
  // Inference saves no statistics: both are empty, like ATen.
  const std::vector<SymInt> empty{SymInt(0)};
  return {contiguous_meta(input.sizes(), input.dtype()), contiguous_meta(empty, saved),
          contiguous_meta(empty, saved)};
}

}  // namespace

void register_norm_ops() {
  const OpDef& native_layer_norm = register_op({
      .schema = "aten::native_layer_norm(Tensor input, SymInt[] "
                "normalized_shape, Tensor? weight, "
                "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
      .meta = layer_norm_meta,
      .cpu = layer_norm_kernel,
      .core = true,
  });
  register_op({
      .schema = "aten::layer_norm(Tensor input, SymInt[] normalized_shape, "
                "Tensor? weight=None, "
                "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) "
                "-> Tensor",
      .decomp =
          [&native_layer_norm](const OpArgs& args) {
            return std::vector<Tensor>{
                call_tensors(native_layer_norm, {args[0], args[1], args[2], args[3], args[4]})[0]};
          },
  });

  const OpDef& no_training = register_op({
      .schema = "aten::_native_batch_norm_legit_no_training(Tensor input, "
                "Tensor? weight, "
                "Tensor? bias, Tensor running_mean, Tensor running_var, float "
                "momentum, "
                "float eps) -> (Tensor, Tensor, Tensor)",
      .meta = batch_norm_meta,
      .cpu =
          [](const OpArgs& args, std::vector<Tensor>& outs) {
            cpu::batch_norm_inference_out(args.tensor(0), args.optional_tensor(1),
                                          args.optional_tensor(2), args.tensor(3), args.tensor(4),
                                          args.real(6), outs[0]);
          },
      .core = true,
  });
  // native_batch_norm(input, weight, bias, running_mean, running_var, training,
  // momentum, eps)
  register_op({
      .schema = "aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, "
                "Tensor? running_mean, Tensor? running_var, bool training, float "
                "momentum, "
                "float eps) -> (Tensor, Tensor, Tensor)",
      .decomp =
          [&no_training](const OpArgs& args) {
            check_inference(args, 5);
            check_batch_norm(args, true);
            return call_tensors(no_training,
                                {args[0], args[1], args[2], args[3], args[4], args[6], args[7]});
          },
  });
  // batch_norm(input, weight, bias, running_mean, running_var, training,
  // momentum, eps, cudnn_enabled)
  register_op({
      .schema = "aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, "
                "Tensor? running_mean, "
                "Tensor? running_var, bool training, float momentum, float eps, "
                "bool cudnn_enabled) -> Tensor",
      .decomp =
          [&no_training](const OpArgs& args) {
            check_batch_norm(args, false);
            check_inference(args, 5);
            check_batch_norm(args, true);
            return std::vector<Tensor>{call_tensors(
                no_training, {args[0], args[1], args[2], args[3], args[4], args[6], args[7]})[0]};
          },
  });
}

}  // namespace xport::ops
