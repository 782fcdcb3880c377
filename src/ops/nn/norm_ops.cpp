// Normalization: layer norm, and batch norm with running statistics (inference) or batch
// statistics (training, which also updates the running ones).
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/norm.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// ---- layer norm ----

// Checks native_layer_norm's input, normalized_shape, weight and bias (its backward names them
// the same); gives the sizes of mean and rstd: the input's leading dims, then 1s.
std::vector<SymInt> layer_norm_stat_sizes(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const std::vector<SymInt>& shape = args.sym_ints("normalized_shape");
  XPORT_CHECK(!shape.empty(), InvalidInput, args.name(),
              ": normalized_shape must have at least one dim, got []");
  XPORT_CHECK(is_floating(input.dtype()), InvalidInput, args.name(),
              ": needs a floating point input, got ", dtype_name(input.dtype()));
  for (const char* what : {"weight", "bias"}) {
    const Tensor t = args.optional_tensor(what);
    if (!t.defined()) continue;
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
  return stat_sizes;
}

// native_layer_norm(input, normalized_shape, weight, bias, eps)
std::vector<TensorMeta> layer_norm_meta(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const std::vector<SymInt> stat_sizes = layer_norm_stat_sizes(args);
  return {contiguous_meta(input.sizes(), input.dtype()), contiguous_meta(stat_sizes, input.dtype()),
          contiguous_meta(stat_sizes, input.dtype())};
}

// A backward op's results: the gradient of each of `wrt` (input, weight, bias) that its
// output_mask asks for, shaped like that argument; None for the others. A gradient of an
// argument that is None is refused, as ATen does.
std::vector<TensorMeta> masked_gradients(const OpArgs& args, const std::vector<const char*>& wrt,
                                         const std::vector<std::vector<SymInt>>& sizes) {
  const Tensor& input = args.tensor("input");
  const Tensor& grad_out = args.tensor("grad_out");
  XPORT_CHECK(grad_out.sizes() == input.sizes() && grad_out.dtype() == input.dtype(),
              InvalidInput, args.name(), ": grad_out ", dtype_name(grad_out.dtype()),
              shape_str(grad_out.sizes()), " must have input's shape and dtype, ",
              dtype_name(input.dtype()), shape_str(input.sizes()));
  const std::vector<bool>& mask = args.bools("output_mask");
  std::vector<TensorMeta> results;
  for (size_t k = 0; k < wrt.size(); ++k) {
    if (!mask[k]) {
      results.push_back(TensorMeta::none_result());
      continue;
    }
    XPORT_CHECK(k == 0 || args.optional_tensor(wrt[k]).defined(), InvalidInput, args.name(),
                ": output_mask[", k, "] asks for the gradient of ", wrt[k], ", which is None");
    results.push_back(contiguous_meta(sizes[k], input.dtype()));
  }
  return results;
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
// output_mask)
std::vector<TensorMeta> layer_norm_backward_meta(const OpArgs& args) {
  const std::vector<SymInt> stat_sizes = layer_norm_stat_sizes(args);
  for (const char* stat : {"mean", "rstd"}) {
    XPORT_CHECK(static_cast<bool>(args.tensor(stat).numel() == numel_of(stat_sizes)), InvalidInput,
                args.name(), ": ", stat, " needs ", numel_of(stat_sizes), " values (", 
                shape_str(stat_sizes), "), got ", shape_str(args.tensor(stat).sizes()));
  }
  const std::vector<SymInt>& shape = args.sym_ints("normalized_shape");
  return masked_gradients(args, {"input", "weight", "bias"},
                          {args.tensor("input").sizes(), shape, shape});
}

// ---- batch norm ----

// Checks the per-channel tensors of a batch norm; gives the dtype of the saved
// statistics.
DType check_batch_norm(const OpArgs& args, bool stats_required) {
  const Tensor& input = args.tensor("input");
  XPORT_CHECK(input.dim() >= 2, InvalidInput, args.name(),
              ": needs an input with a batch and a channel dim [N, C, ...], got ",
              shape_str(input.sizes()));
  XPORT_CHECK(is_floating(input.dtype()), InvalidInput, args.name(),
              ": needs a floating point input, got ", dtype_name(input.dtype()));
  const SymInt channels = input.size(1);
  DType param_dtype = input.dtype();
  // ATen checks the running statistics first; each name with whether it is a running statistic.
  static const std::pair<const char*, bool> kChecked[] = {
      {"running_mean", true}, {"running_var", true}, {"weight", false}, {"bias", false}};
  for (const auto& [name, is_stat] : kChecked) {
    if (args.op().arg_position(name) < 0) continue;  // _native_batch_norm_legit.no_stats
    const Tensor t = args.optional_tensor(name);
    if (!t.defined()) {
      XPORT_CHECK(!stats_required || !is_stat, InvalidInput, args.name(), ": ", name,
                  " must be defined in evaluation mode (training=False)");
      continue;
    }
    XPORT_CHECK(static_cast<bool>(t.numel() == channels), InvalidInput, args.name(), ": ",
                name, " should contain ", channels, " elements (the input's channels), not ",
                t.numel());
    const bool reduced = input.dtype() == DType::BFloat16 || input.dtype() == DType::Float16;
    XPORT_CHECK(t.dtype() == input.dtype() || (reduced && t.dtype() == DType::Float32),
                InvalidInput, args.name(), ": ", name, " has dtype ", dtype_name(t.dtype()),
                " but input has ", dtype_name(input.dtype()), "; convert them to one dtype");
    param_dtype = t.dtype();
  }
  return param_dtype;
}

std::vector<TensorMeta> batch_norm_meta(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const DType saved = check_batch_norm(args, true);
  // Inference saves no statistics: both are empty, like ATen.
  const std::vector<SymInt> empty{SymInt(0)};
  return {contiguous_meta(input.sizes(), input.dtype()), contiguous_meta(empty, saved),
          contiguous_meta(empty, saved)};
}

// _native_batch_norm_legit[_functional](input, weight, bias, running_mean, running_var,
// training, momentum, eps): the batch's statistics in training mode, the running ones otherwise.
// The functional form also returns the new running statistics.
std::vector<TensorMeta> batch_norm_legit_meta(const OpArgs& args, bool functional) {
  const Tensor& input = args.tensor("input");
  const DType saved = check_batch_norm(args, true);
  const std::vector<SymInt> stats = args.boolean("training") ? std::vector<SymInt>{input.size(1)}
                                                             : std::vector<SymInt>{SymInt(0)};
  std::vector<TensorMeta> out = {contiguous_meta(input.sizes(), input.dtype()),
                                 contiguous_meta(stats, saved), contiguous_meta(stats, saved)};
  if (functional) {
    for (const char* name : {"running_mean", "running_var"}) {
      out.push_back(contiguous_meta(args.tensor(name).sizes(), args.tensor(name).dtype()));
    }
  }
  return out;
}

}  // namespace

void native_layer_norm_out(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                           const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                           double eps, const Tensor& out, const Tensor& mean,
                           const Tensor& rstd) {
  int64_t n = 1;
  for (int64_t s : normalized_shape) n *= s;
  cpu::layer_norm_out(input, weight.value_or(Tensor()), bias.value_or(Tensor()), n, eps, out,
                      mean, rstd);
}
void _native_batch_norm_legit_no_training_out(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, double, double eps, const Tensor& out,
    const Tensor&, const Tensor&) {
  cpu::batch_norm_inference_out(input, weight.value_or(Tensor()), bias.value_or(Tensor()),
                                running_mean, running_var, eps, out);
}
// Writes out, save_mean and save_invstd; the new running statistics go to running_mean_out and
// running_var_out (the in-place op passes the running statistics themselves, or undefined
// tensors in inference).
void _native_batch_norm_legit_functional_out(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, bool training, double momentum,
    double eps, const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd,
    const Tensor& running_mean_out, const Tensor& running_var_out) {
  if (!training) {
    cpu::batch_norm_inference_out(input, weight.value_or(Tensor()), bias.value_or(Tensor()),
                                  running_mean, running_var, eps, out);
    if (running_mean_out.defined() && !running_mean_out.is_same(running_mean)) {
      cpu::copy_into(running_mean_out, running_mean);
      cpu::copy_into(running_var_out, running_var);
    }
    return;
  }
  cpu::batch_norm_training_out(input, weight.value_or(Tensor()), bias.value_or(Tensor()),
                               running_mean, running_var, momentum, eps, out, save_mean,
                               save_invstd, running_mean_out, running_var_out);
}

void _native_batch_norm_legit_out(const Tensor& input, const std::optional<Tensor>& weight,
                                  const std::optional<Tensor>& bias, const Tensor& running_mean,
                                  const Tensor& running_var, bool training, double momentum,
                                  double eps, const Tensor& out, const Tensor& save_mean,
                                  const Tensor& save_invstd) {
  _native_batch_norm_legit_functional_out(input, weight, bias, running_mean, running_var, training,
                                          momentum, eps, out, save_mean, save_invstd,
                                          training ? running_mean : Tensor(),
                                          training ? running_var : Tensor());
}

// Training batch norm with the batch's statistics and no running ones to update.
void _native_batch_norm_legit_no_stats_out(const Tensor& input, const std::optional<Tensor>& weight,
                                           const std::optional<Tensor>& bias, bool,
                                           double momentum, double eps, const Tensor& out,
                                           const Tensor& save_mean, const Tensor& save_invstd) {
  cpu::batch_norm_training_out(input, weight.value_or(Tensor()), bias.value_or(Tensor()),
                               Tensor(), Tensor(), momentum, eps, out, save_mean, save_invstd,
                               Tensor(), Tensor());
}

void native_layer_norm_backward_out(const Tensor& grad_out, const Tensor& input,
                                    const std::vector<int64_t>& normalized_shape,
                                    const Tensor& mean, const Tensor& rstd,
                                    const std::optional<Tensor>& weight,
                                    const std::optional<Tensor>&, const std::vector<bool>&,
                                    const Tensor& grad_input, const Tensor& grad_weight,
                                    const Tensor& grad_bias) {
  int64_t cols = 1;
  for (int64_t s : normalized_shape) cols *= s;
  int64_t rows = 1;
  for (int64_t d = 0; d < input.dim() - static_cast<int64_t>(normalized_shape.size()); ++d)
    rows *= input.int_size(d);
  cpu::norm_backward_out(grad_out, input, mean, rstd, weight.value_or(Tensor()),
                         {.rows = rows, .cols = cols, .groups = 1, .channels = cols, .inner = 1},
                         grad_input, grad_weight, grad_bias);
}

void native_group_norm_backward_out(const Tensor& grad_out, const Tensor& input,
                                    const Tensor& mean, const Tensor& rstd,
                                    const std::optional<Tensor>& weight, int64_t N, int64_t C,
                                    int64_t HxW, int64_t group, const std::vector<bool>&,
                                    const Tensor& grad_input, const Tensor& grad_weight,
                                    const Tensor& grad_bias) {
  cpu::norm_backward_out(grad_out, input, mean, rstd, weight.value_or(Tensor()),
                         {.rows = N * group,
                          .cols = C / group * HxW,
                          .groups = group,
                          .channels = C / group,
                          .inner = HxW},
                         grad_input, grad_weight, grad_bias);
}

void native_group_norm_out(const Tensor& input, const std::optional<Tensor>& weight,
                           const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW,
                           int64_t group, double eps, const Tensor& out, const Tensor& mean,
                           const Tensor& rstd) {
  cpu::group_norm_out(input, weight.value_or(Tensor()), bias.value_or(Tensor()), N, C, HxW, group,
                      eps, out, mean, rstd);
}

namespace {

// Checks native_group_norm's input [N, C, *] with N, C and HxW (the product of the rest) given,
// group and `per_channel` (weight, bias: C values each when given); its backward names them
// the same. Gives the sizes of mean and rstd, [N, group].
std::vector<SymInt> group_norm_stat_sizes(const OpArgs& args,
                                          std::initializer_list<const char*> per_channel) {
  const Tensor& input = args.tensor("input");
  const int64_t group = args.integer("group");
  XPORT_CHECK(is_floating(input.dtype()), InvalidInput, args.name(),
              ": needs a floating input, got ", dtype_name(input.dtype()));
  XPORT_CHECK(input.dim() >= 2, InvalidInput, args.name(),
              ": input needs at least 2 dims [N, C, ...], got ", input.dim());
  const SymInt& C = args.sym_int("C");
  XPORT_CHECK(group > 0 && static_cast<bool>(C % group == 0), InvalidInput, args.name(),
              ": the number of channels (", C, ") must be divisible by group (", group, ")");
  XPORT_CHECK(static_cast<bool>(input.numel() == args.sym_int("N") * C * args.sym_int("HxW")),
              InvalidInput, args.name(), ": N * C * HxW (", args.sym_int("N"), " * ", C, " * ",
              args.sym_int("HxW"), ") must be the input's number of elements, ", input.numel());
  for (const char* name : per_channel) {
    const Tensor t = args.optional_tensor(name);
    XPORT_CHECK(!t.defined() || (t.dim() == 1 && static_cast<bool>(t.size(0) == C)),
                InvalidInput, args.name(), ": ", name, " needs C = ", C, " elements");
  }
  return {args.sym_int("N"), SymInt(group)};
}

// native_group_norm: mean and rstd are [N, group] in the input's dtype.
std::vector<TensorMeta> group_norm_meta(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const std::vector<SymInt> stats = group_norm_stat_sizes(args, {"weight", "bias"});
  return {contiguous_meta(input.sizes(), input.dtype()), contiguous_meta(stats, input.dtype()),
          contiguous_meta(stats, input.dtype())};
}

// native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group,
// output_mask): the bias gradient, too, needs weight (as in ATen).
std::vector<TensorMeta> group_norm_backward_meta(const OpArgs& args) {
  const std::vector<SymInt> stats = group_norm_stat_sizes(args, {"weight"});
  for (const char* stat : {"mean", "rstd"}) {
    XPORT_CHECK(static_cast<bool>(args.tensor(stat).numel() == stats[0] * stats[1]), InvalidInput,
                args.name(), ": ", stat, " needs N * group = ", stats[0] * stats[1],
                " values, got ", shape_str(args.tensor(stat).sizes()));
  }
  const std::vector<SymInt> channels = {args.sym_int("C")};
  return masked_gradients(args, {"input", "weight", "weight"},
                          {args.tensor("input").sizes(), channels, channels});
}

}  // namespace

namespace {

// ATen's native_layer_norm_backward, asked only for the gradients wanted.
void layer_norm_derivative(Backward& b) {
  const OpArgs& a = b.args();
  const Tensor weight = a.optional_tensor("weight"), bias = a.optional_tensor("bias");
  const std::vector<bool> mask = {b.needs("input"), weight.defined() && b.needs("weight"),
                                  bias.defined() && b.needs("bias")};
  const std::vector<Tensor> grads =
      call_tensors(XPORT_OP("aten::native_layer_norm_backward"),
                   {b.grad(), a["input"], a["normalized_shape"], b.result(1), b.result(2),
                    a["weight"], a["bias"], mask});
  if (mask[0]) b.set("input", grads[0]);
  if (mask[1]) b.set("weight", grads[1]);
  if (mask[2]) b.set("bias", grads[2]);
}

// Per-channel values (dim 1 of the input) shaped to broadcast against the input.
Tensor per_channel(const Tensor& v, const Tensor& input) {
  std::vector<SymInt> shape(input.dim(), SymInt(1));
  shape[1] = input.sizes()[1];
  return v.reshape(shape);
}

// Batch norm: in training the batch's statistics depend on the input too (PyTorch's
// batchnorm_double_backward's first-order terms); in evaluation the running ones do not.
void batch_norm_derivative(Backward& b) {
  const OpArgs& a = b.args();
  const Tensor& x = a.tensor("input");
  const Tensor weight = a.optional_tensor("weight");
  const int training_arg = a.op().arg_position("training");
  const bool training = training_arg >= 0 && a.boolean("training");
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  const Tensor g = b.grad();
  Tensor mean, rstd;
  if (training) {
    mean = b.result(1);
    rstd = b.result(2);
  } else {
    mean = a.tensor("running_mean");
    rstd = (a.tensor("running_var") + a.real("eps")).rsqrt();
  }
  const Tensor x_hat = (x - per_channel(mean, x)) * per_channel(rstd, x);
  const Tensor scale = weight.defined() ? per_channel(rstd * weight, x) : per_channel(rstd, x);
  if (b.needs("input")) {
    if (training) {
      const Tensor g_mean = g.mean(dims, true);
      const Tensor gx_mean = (g * x_hat).mean(dims, true);
      b.set("input", (g - g_mean - x_hat * gx_mean) * scale);
    } else {
      b.set("input", g * scale);
    }
  }
  if (weight.defined()) b.set("weight", (g * x_hat).sum(dims));
  if (!a["bias"].is_none()) b.set("bias", g.sum(dims));
}

}  // namespace

void register_norm_ops() {
  // weight_norm's reparametrisation w = v * (g / |v|), the 2-norm over every dim of v but `dim`
  // (over all of v for dim = -1), as ATen's norm_except_dim.
  register_op({
      .schema = "aten::_weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            const Tensor& v = args.tensor("v");
            const int64_t dim = args.integer("dim");
            Tensor norm;
            if (dim == -1) {
              norm = call1(XPORT_OP("aten::linalg_vector_norm"), {v, 2.0, Value(), false, Value()});
            } else {
              const int64_t keep = wrap_dim(args, dim, v.dim());
              std::vector<int64_t> others;
              for (int64_t d = 0; d < v.dim(); ++d) {
                if (d != keep) others.push_back(d);
              }
              norm = others.empty() ? v.abs()
                                    : call1(XPORT_OP("aten::linalg_vector_norm"),
                                            {v, 2.0, others, true, Value()});
            }
            return std::vector<Tensor>{v * (args.tensor("g") / norm)};
          },
  });
  const OpDef& native_group_norm = register_op({
      .schema = "aten::native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, "
                "SymInt C, SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)",
      .meta = group_norm_meta,
      .kernel = XPORT_OP_KERNEL(native_group_norm_out),
      .core = true,
  });
  // nn.GroupNorm's op in PyTorch's training IR.
  register_op({
      .schema = "aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, "
                "Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor",
      .decomp =
          [&native_group_norm](const OpArgs& args) {
            const Tensor& input = args.tensor("input");
            XPORT_CHECK(input.dim() >= 2, InvalidInput, args.name(),
                        ": input needs at least 2 dims [N, C, ...], got ", input.dim());
            SymInt hxw(1);
            for (int64_t d = 2; d < input.dim(); ++d) hxw = hxw * input.size(d);
            return std::vector<Tensor>{call_tensors(
                native_group_norm, {input, args["weight"], args["bias"], input.size(0),
                                    input.size(1), hxw, args["num_groups"], args["eps"]})[0]};
          },
  });

  register_op({
      .schema = "aten::native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, "
                "Tensor rstd, Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, "
                "bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
      .meta = group_norm_backward_meta,
      .kernel = XPORT_OP_KERNEL(native_group_norm_backward_out),
      .core = true,
  });
  register_op({
      .schema = "aten::native_layer_norm_backward(Tensor grad_out, Tensor input, "
                "SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, "
                "Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
      .meta = layer_norm_backward_meta,
      .kernel = XPORT_OP_KERNEL(native_layer_norm_backward_out),
      .core = true,
  });

  const OpDef& native_layer_norm = register_op({
      .schema = "aten::native_layer_norm(Tensor input, SymInt[] "
                "normalized_shape, Tensor? weight, "
                "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
      .meta = layer_norm_meta,
      .kernel = XPORT_OP_KERNEL(native_layer_norm_out),
      .derivative = layer_norm_derivative,
      .differentiable_results = 1,
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
                call_tensors(native_layer_norm, {args["input"], args["normalized_shape"],
                                                 args["weight"], args["bias"], args["eps"]})[0]};
          },
  });

  const OpDef& no_training = register_op({
      .schema = "aten::_native_batch_norm_legit_no_training(Tensor input, "
                "Tensor? weight, "
                "Tensor? bias, Tensor running_mean, Tensor running_var, float "
                "momentum, "
                "float eps) -> (Tensor, Tensor, Tensor)",
      .meta = batch_norm_meta,
      .kernel = XPORT_OP_KERNEL(_native_batch_norm_legit_no_training_out),
      .derivative = batch_norm_derivative,
      .differentiable_results = 1,
      .core = true,
  });
  const OpDef& legit_functional = register_op({
      .schema = "aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, "
                "Tensor? bias, Tensor running_mean, Tensor running_var, bool training, "
                "float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor running_mean_out, "
                "Tensor running_var_out)",
      .meta = [](const OpArgs& args) { return batch_norm_legit_meta(args, true); },
      .kernel = XPORT_OP_KERNEL(_native_batch_norm_legit_functional_out),
      .derivative = batch_norm_derivative,
      .differentiable_results = 1,
      .core = true,
  });
  register_op({
      .schema = "aten::_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, "
                "Tensor? bias, bool training, float momentum, float eps) -> (Tensor, Tensor, "
                "Tensor)",
      .meta =
          [](const OpArgs& args) {
            XPORT_CHECK(args.boolean("training"), InvalidInput, args.name(),
                        ": without running statistics only training=True (the batch's "
                        "statistics) is defined");
            return batch_norm_legit_meta(args, false);
          },
      .kernel = XPORT_OP_KERNEL(_native_batch_norm_legit_no_stats_out),
      .core = true,
  });
  // Updates running_mean and running_var in place in training mode; capture records the
  // functional form above instead.
  const OpDef& legit = register_op({
      .schema = "aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, "
                "Tensor(a!) running_mean, Tensor(b!) running_var, bool training, "
                "float momentum, float eps) -> (Tensor, Tensor, Tensor)",
      .meta = [](const OpArgs& args) { return batch_norm_legit_meta(args, false); },
      .kernel = XPORT_OP_KERNEL(_native_batch_norm_legit_out),
      .decomp =
          [&legit_functional](const OpArgs& args) {
            std::vector<Tensor> r = call_tensors(legit_functional, args.values());
            Tensor running_mean = args.tensor("running_mean");
            Tensor running_var = args.tensor("running_var");
            running_mean.copy_(r[3]);
            running_var.copy_(r[4]);
            return std::vector<Tensor>{r[0], r[1], r[2]};
          },
  });
  // Training mode normalises with the batch's statistics and updates the running ones.
  auto training_batch_norm = [&legit](const OpArgs& args) {
    XPORT_CHECK(args.optional_tensor("running_mean").defined() &&
                    args.optional_tensor("running_var").defined(),
                UnsupportedOp, args.name(),
                ": training mode without running statistics (track_running_stats=False) is not "
                "supported yet; pass running_mean and running_var");
    return call_tensors(legit, {args["input"], args["weight"], args["bias"], args["running_mean"],
                                args["running_var"], true, args["momentum"], args["eps"]});
  };
  // native_batch_norm(input, weight, bias, running_mean, running_var, training,
  // momentum, eps)
  register_op({
      .schema = "aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, "
                "Tensor? running_mean, Tensor? running_var, bool training, float "
                "momentum, "
                "float eps) -> (Tensor, Tensor, Tensor)",
      .decomp =
          [&no_training, training_batch_norm](const OpArgs& args) {
            if (args.boolean("training")) return training_batch_norm(args);
            check_batch_norm(args, true);
            return call_tensors(no_training, {args["input"], args["weight"], args["bias"],
                                              args["running_mean"], args["running_var"],
                                              args["momentum"], args["eps"]});
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
          [&no_training, training_batch_norm](const OpArgs& args) {
            check_batch_norm(args, false);
            if (args.boolean("training")) return std::vector<Tensor>{training_batch_norm(args)[0]};
            check_batch_norm(args, true);
            return std::vector<Tensor>{
                call_tensors(no_training, {args["input"], args["weight"], args["bias"],
                                           args["running_mean"], args["running_var"],
                                           args["momentum"], args["eps"]})[0]};
          },
  });
}

}  // namespace xport::ops
