// Convolution: aten::convolution (1-D and 2-D, a 1-D convolution as a 2-D one of height 1; the
// forward kernel runs on oneDNN, the transposed one as GEMMs over im2col columns), its gradients
// (convolution_backward), and conv1d / conv2d with numeric or "valid" / "same" padding, which
// decompose into it.
#include "kernels/cpu/conv.h"
#include "kernels/cpu/conv_grad.h"
#include "ops/linalg/linalg_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// A stride/padding/dilation list: one value for every spatial dim, or one per dim.
std::vector<SymInt> spatial_param(const OpArgs& args, const char* name, size_t dims) {
  const std::vector<SymInt>& v = args.sym_ints(name);
  XPORT_CHECK(v.size() == 1 || v.size() == dims, InvalidInput, args.name(), ": expected ", name,
              " to be a single integer value or a list of ", dims,
              " values to match the convolution dimensions, but got ", name, "=", shape_str(v));
  return v.size() == 1 ? std::vector<SymInt>(dims, v[0]) : v;
}

// The same for a kernel, whose lists the meta function checked.
std::array<int64_t, 2> spatial_param(const std::vector<int64_t>& v) {
  return {v[0], v.size() == 1 ? v[0] : v[1]};
}

}  // namespace

// 1-D and 2-D convolution: [N, C, (H,) W] input; weight [O, C / groups, (kh,) kw], or
// [C, O / groups, (kh,) kw] when transposed (the gradient of a convolution by its input, as
// nn.ConvTranspose uses it).

std::vector<SymInt> convolution_sizes(const OpArgs& args, bool transposed) {
  const Tensor& input = args.tensor("input");
  const Tensor& weight = args.tensor("weight");
  const Tensor bias = args.optional_tensor("bias");
  XPORT_CHECK(weight.dim() == 3 || weight.dim() == 4, UnsupportedOp, args.name(),
              ": only 1-D and 2-D convolution (3-D weight [out, in / groups, k] or 4-D "
              "[out, in / groups, kh, kw]) are supported, got a ",
              weight.dim(), "-D weight of shape ", shape_str(weight.sizes()));
  const size_t dims = static_cast<size_t>(weight.dim() - 2);
  XPORT_CHECK(input.dim() == weight.dim(), InvalidInput, args.name(), ": expected ",
              weight.dim(), "-D input for ", weight.dim(), "-D weight ",
              shape_str(weight.sizes()), ", but got ", input.dim(), "-D input of shape ",
              shape_str(input.sizes()), " instead; use conv", dims, "d for an unbatched input");
  const std::vector<SymInt> stride = spatial_param(args, "stride", dims);
  const std::vector<SymInt> padding = spatial_param(args, "padding", dims);
  const std::vector<SymInt> dilation = spatial_param(args, "dilation", dims);
  const int64_t groups = args.integer("groups");
  for (size_t d = 0; d < dims; ++d) {
    XPORT_CHECK(static_cast<bool>(stride[d] > 0), InvalidInput, args.name(),
                ": non-positive stride is not supported, got stride=", shape_str(stride));
    XPORT_CHECK(static_cast<bool>(padding[d] >= 0), InvalidInput, args.name(),
                ": negative padding is not supported, got padding=", shape_str(padding));
    XPORT_CHECK(static_cast<bool>(dilation[d] > 0), InvalidInput, args.name(),
                ": dilation should be greater than zero, got dilation=", shape_str(dilation));
  }
  XPORT_CHECK(groups > 0, InvalidInput, args.name(), ": non-positive groups is not supported, got ",
              groups);
  // The weight's dim 0 is per output channel (per input channel when transposed).
  const SymInt& lead = weight.sizes()[0];
  XPORT_CHECK(static_cast<bool>(lead >= groups) && static_cast<bool>(lead % groups == 0),
              InvalidInput, args.name(), ": given groups=", groups,
              ", expected weight to be at least ", groups, " and divisible by ", groups,
              " at dimension 0, but got weight of shape ", shape_str(weight.sizes()));
  const SymInt in_channels = transposed ? lead : weight.sizes()[1] * groups;
  const SymInt out_channels = transposed ? weight.sizes()[1] * groups : lead;
  XPORT_CHECK(static_cast<bool>(input.sizes()[1] == in_channels), InvalidInput, args.name(),
              ": given groups=", groups, ", weight of shape ", shape_str(weight.sizes()),
              " expects input ", shape_str(input.sizes()), " to have ", in_channels,
              " channels, but got ", input.sizes()[1], " channels instead");
  if (bias.defined()) {
    XPORT_CHECK(bias.dim() == 1 && static_cast<bool>(bias.sizes()[0] == out_channels), InvalidInput,
                args.name(), ": given weight of shape ", shape_str(weight.sizes()),
                ", expected bias to be 1-D with ", out_channels,
                " elements, but got bias of shape ", shape_str(bias.sizes()), " instead");
  }
  std::vector<SymInt> sizes = {input.sizes()[0], out_channels};
  std::vector<SymInt> kernel(dims);
  for (size_t d = 0; d < dims; ++d) kernel[d] = dilation[d] * (weight.sizes()[2 + d] - 1) + 1;
  if (transposed) {
    const std::vector<SymInt> output_padding = spatial_param(args, "output_padding", dims);
    for (size_t d = 0; d < dims; ++d) {
      XPORT_CHECK(static_cast<bool>(output_padding[d] >= 0) &&
                      (static_cast<bool>(output_padding[d] < stride[d]) ||
                       static_cast<bool>(output_padding[d] < dilation[d])),
                  InvalidInput, args.name(), ": output padding must be smaller than either "
                  "stride or dilation, got output_padding=", shape_str(output_padding),
                  ", stride=", shape_str(stride), ", dilation=", shape_str(dilation));
      const SymInt size = (input.sizes()[2 + d] - 1) * stride[d] - padding[d] * 2 + kernel[d] +
                          output_padding[d];
      XPORT_CHECK(static_cast<bool>(size > 0), InvalidInput, args.name(),
                  ": the output would have size ", size, " in spatial dim ", d,
                  "; lower padding or raise stride");
      sizes.push_back(size);
    }
    return sizes;
  }
  std::vector<SymInt> padded(dims);
  for (size_t d = 0; d < dims; ++d) padded[d] = input.sizes()[2 + d] + padding[d] * 2;
  for (size_t d = 0; d < dims; ++d) {
    XPORT_CHECK(static_cast<bool>(padded[d] >= kernel[d]), InvalidInput, args.name(),
                ": calculated padded input size per channel: ", shape_str(padded),
                ", kernel size (dilated): ", shape_str(kernel),
                "; the kernel can't be greater than the padded input");
    sizes.push_back((padded[d] - kernel[d]) / stride[d] + 1);
  }
  return sizes;
}

namespace {

std::vector<TensorMeta> convolution_meta(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const Tensor& weight = args.tensor("weight");
  const bool transposed = args.boolean("transposed");
  XPORT_CHECK(input.dtype() == weight.dtype(), InvalidInput, args.name(), ": input type (",
              dtype_name(input.dtype()), ") and weight type (", dtype_name(weight.dtype()),
              ") should be the same; convert one with .to(dtype)");
  XPORT_CHECK(input.dtype() != DType::Bool, InvalidInput, args.name(),
              ": bool tensors are not supported");
  XPORT_CHECK(!transposed || is_floating(input.dtype()), UnsupportedOp, args.name(),
              ": transposed convolution of ", dtype_name(input.dtype()),
              " tensors is not supported; convert them with .to(DType::Float32)");
  return {contiguous_meta(convolution_sizes(args, transposed), input.dtype())};
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
// transposed, output_padding, groups, output_mask): the gradients of input, weight and bias
// ([O]) that output_mask asks for, None for the others. grad_output must have the shape the
// convolution of input and weight has.
std::vector<TensorMeta> convolution_backward_meta(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const Tensor& weight = args.tensor("weight");
  const Tensor& grad = args.tensor("grad_output");
  const TensorMeta forward = convolution_meta(bind_args(
      XPORT_OP("aten::convolution"),
      {input, weight, Value(), args["stride"], args["padding"], args["dilation"],
       args["transposed"], args["output_padding"], args["groups"]}))[0];
  XPORT_CHECK(grad.sizes() == forward.sizes && grad.dtype() == input.dtype(), InvalidInput,
              args.name(), ": grad_output is ", dtype_name(grad.dtype()), shape_str(grad.sizes()),
              " but the convolution's output is ", dtype_name(forward.dtype),
              shape_str(forward.sizes));
  XPORT_CHECK(is_floating(input.dtype()), UnsupportedOp, args.name(),
              ": gradients of ", dtype_name(input.dtype()), " convolutions are not supported");
  const std::vector<bool>& mask = args.bools("output_mask");
  const std::vector<std::vector<SymInt>> sizes = {input.sizes(), weight.sizes(),
                                                  {forward.sizes[1]}};
  std::vector<TensorMeta> results;
  for (size_t k = 0; k < 3; ++k) {
    results.push_back(mask[k] ? contiguous_meta(sizes[k], input.dtype())
                              : TensorMeta::none_result());
  }
  return results;
}

// conv1d / conv2d: convolution of a batched input, or of an unbatched one given a batch of one.
// `input` may have been padded already (padding="same" with an even kernel).
// conv_transpose1d / conv_transpose2d the same, with their output_padding (`transposed`).
Tensor conv_nd(const OpArgs& args, int64_t dims, const Tensor& input,
               const std::vector<SymInt>& padding, bool transposed = false) {
  const char* name = transposed ? "conv_transpose" : "conv";
  XPORT_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, InvalidInput, args.name(),
              ": expected ", dims + 1, "-D (unbatched) or ", dims + 2, "-D (batched) input to ",
              name, dims, "d, but got input of shape ", shape_str(input.sizes()));
  const bool unbatched = input.dim() == dims + 1;
  const Value output_padding = transposed
                                   ? args["output_padding"]
                                   : Value(std::vector<int64_t>(static_cast<size_t>(dims), 0));
  const Tensor r = call1(
      XPORT_OP("aten::convolution"),
      {unbatched ? input.unsqueeze(0) : input, args.tensor("weight"), args["bias"],
       args.sym_ints("stride"), padding, args.sym_ints("dilation"), transposed, output_padding,
       args.integer("groups")});
  return unbatched ? r.squeeze(0) : r;
}

std::vector<Tensor> conv_decomp(const OpArgs& args, int64_t dims) {
  return {conv_nd(args, dims, args.tensor("input"), args.sym_ints("padding"))};
}

// padding="valid" (none) or "same" (the output as long as the input, stride 1): each dim pads
// dilation * (k - 1) in all, half on each side; an odd total puts the extra element on the
// right, through constant_pad_nd, as ATen does.
std::vector<Tensor> conv_padding_decomp(const OpArgs& args, int64_t dims) {
  const std::string& mode = args.str("padding");
  const Tensor& input = args.tensor("input");
  const size_t n = static_cast<size_t>(dims);
  if (mode == "valid") return {conv_nd(args, dims, input, std::vector<SymInt>(n, SymInt(0)))};
  XPORT_CHECK(mode == "same", InvalidInput, args.name(), ": invalid padding string '", mode,
              "'; expected \"valid\" or \"same\"");
  const Tensor& weight = args.tensor("weight");
  XPORT_CHECK(weight.dim() == dims + 2, InvalidInput, args.name(), ": expected a ", dims + 2,
              "-D weight, got shape ", shape_str(weight.sizes()));
  for (const SymInt& s : args.sym_ints("stride")) {
    XPORT_CHECK(static_cast<bool>(s == 1), InvalidInput, args.name(),
                ": padding='same' is not supported for strided convolutions; pad explicitly");
  }
  const std::vector<SymInt>& given = args.sym_ints("dilation");
  std::vector<SymInt> left(n), extra(n);
  bool symmetric = true;
  for (size_t d = 0; d < n; ++d) {
    const SymInt total = given[given.size() == 1 ? 0 : d] * (weight.sizes()[2 + d] - 1);
    left[d] = total / 2;
    extra[d] = total - left[d] * 2;
    symmetric = symmetric && static_cast<bool>(extra[d] == 0);
  }
  if (symmetric) return {conv_nd(args, dims, input, left)};
  std::vector<SymInt> pad;  // constant_pad_nd's order: the last dim first, (before, after)
  for (size_t d = n; d-- > 0;) {
    pad.emplace_back(0);
    pad.push_back(extra[d]);
  }
  return {conv_nd(args, dims, call1(XPORT_OP("aten::constant_pad_nd"), {input, pad, 0.0}), left)};
}

cpu::ConvGeometry geometry(const std::vector<int64_t>& stride,
                           const std::vector<int64_t>& padding,
                           const std::vector<int64_t>& dilation, int64_t groups) {
  return {.stride = spatial_param(stride),
          .padding = spatial_param(padding),
          .dilation = spatial_param(dilation),
          .groups = groups};
}

}  // namespace

void convolution_out(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                     const std::vector<int64_t>& dilation, bool transposed,
                     const std::vector<int64_t>& output_padding, int64_t groups,
                     const Tensor& out) {
  if (weight.dim() == 3) {
    // 1-D: the 2-D convolution of a height-1 image, [N, C, 1, L], written through a view of out.
    convolution_out(input.unsqueeze(2), weight.unsqueeze(2), bias, {1, stride[0]},
                    {0, padding[0]}, {1, dilation[0]}, transposed, output_padding, groups,
                    out.unsqueeze(2));
    return;
  }
  if (transposed) {
    cpu::conv_transpose2d_out(input, weight, bias.value_or(Tensor()),
                              geometry(stride, padding, dilation, groups), out);
    return;
  }
  cpu::Conv2dParams p;
  p.stride = spatial_param(stride);
  p.padding = spatial_param(padding);
  p.dilation = spatial_param(dilation);
  p.groups = groups;
  cpu::conv2d_out(input, weight, bias.value_or(Tensor()), p, out);
}

void convolution_backward_out(const Tensor& grad_output, const Tensor& input,
                              const Tensor& weight, const std::optional<std::vector<int64_t>>&,
                              const std::vector<int64_t>& stride,
                              const std::vector<int64_t>& padding,
                              const std::vector<int64_t>& dilation, bool transposed,
                              const std::vector<int64_t>& output_padding, int64_t groups,
                              const std::vector<bool>& output_mask, const Tensor& grad_input,
                              const Tensor& grad_weight, const Tensor& grad_bias) {
  if (weight.dim() == 3) {
    // 1-D: the gradients of the 2-D convolution of a height-1 image, through views.
    const auto height_one = [](const Tensor& t) { return t.defined() ? t.unsqueeze(2) : t; };
    convolution_backward_out(grad_output.unsqueeze(2), input.unsqueeze(2), weight.unsqueeze(2),
                             std::nullopt, {1, stride[0]}, {0, padding[0]}, {1, dilation[0]},
                             transposed, {0, output_padding[0]}, groups, output_mask,
                             height_one(grad_input), height_one(grad_weight), grad_bias);
    return;
  }
  const cpu::ConvGeometry g = geometry(stride, padding, dilation, groups);
  if (transposed) {
    cpu::conv_transpose2d_backward_out(grad_output, input, weight, g, grad_input, grad_weight,
                                       grad_bias);
  } else {
    cpu::conv2d_backward_out(grad_output, input, weight, g, grad_input, grad_weight, grad_bias);
  }
}

namespace {

// ATen's convolution_backward, asked only for the gradients wanted.
void convolution_derivative(Backward& b) {
  const OpArgs& a = b.args();
  const Tensor bias = a.optional_tensor("bias");
  const std::vector<bool> mask = {b.needs("input"), b.needs("weight"),
                                  bias.defined() && b.needs("bias")};
  const Value bias_sizes = bias.defined() ? Value(bias.sizes()) : Value();
  const std::vector<Tensor> grads = call_tensors(
      XPORT_OP("aten::convolution_backward"),
      {b.grad(), a["input"], a["weight"], bias_sizes, a["stride"], a["padding"], a["dilation"],
       a["transposed"], a["output_padding"], a["groups"], mask});
  if (mask[0]) b.set("input", grads[0]);
  if (mask[1]) b.set("weight", grads[1]);
  if (mask[2]) b.set("bias", grads[2]);
}

}  // namespace

void register_conv_ops() {
  register_op({
      .schema = "aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
                "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
                "SymInt groups) -> Tensor",
      .meta = convolution_meta,
      .kernel = XPORT_OP_KERNEL(convolution_out),
      .derivative = convolution_derivative,
      .core = true,
  });
  register_op({
      .schema = "aten::convolution_backward(Tensor grad_output, Tensor input, Tensor weight, "
                "SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, "
                "bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask) "
                "-> (Tensor, Tensor, Tensor)",
      .meta = convolution_backward_meta,
      .kernel = XPORT_OP_KERNEL(convolution_backward_out),
      .core = true,
  });
  // nn.ConvTranspose1d / 2d in PyTorch's training IR.
  register_op({
      .schema = "aten::conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, "
                "SymInt[1] stride=[1], SymInt[1] padding=[0], SymInt[1] output_padding=[0], "
                "SymInt groups=1, SymInt[1] dilation=[1]) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            return single(conv_nd(args, 1, args.tensor("input"), args.sym_ints("padding"), true));
          },
  });
  register_op({
      .schema = "aten::conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, "
                "SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], "
                "SymInt[2] output_padding=[0, 0], SymInt groups=1, SymInt[2] dilation=[1, 1]) "
                "-> Tensor",
      .decomp =
          [](const OpArgs& args) {
            return single(conv_nd(args, 2, args.tensor("input"), args.sym_ints("padding"), true));
          },
  });
  register_op({
      .schema = "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
                "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
      .decomp = [](const OpArgs& args) { return conv_decomp(args, 2); },
  });
  register_op({
      .schema = "aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, "
                "SymInt[1] stride=[1], SymInt[1] padding=[0], SymInt[1] dilation=[1], "
                "SymInt groups=1) -> Tensor",
      .decomp = [](const OpArgs& args) { return conv_decomp(args, 1); },
  });
  register_op({
      .schema = "aten::conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
                "SymInt[1] stride=[1], str padding=\"valid\", SymInt[1] dilation=[1], "
                "SymInt groups=1) -> Tensor",
      .decomp = [](const OpArgs& args) { return conv_padding_decomp(args, 1); },
  });
  register_op({
      .schema = "aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
                "SymInt[2] stride=[1, 1], str padding=\"valid\", SymInt[2] dilation=[1, 1], "
                "SymInt groups=1) -> Tensor",
      .decomp = [](const OpArgs& args) { return conv_padding_decomp(args, 2); },
  });
}

}  // namespace xport::ops
