// Convolution: aten::convolution (2-D, not transposed; the kernel runs on oneDNN) and conv2d,
// which decomposes into it.
#include "kernels/cpu/conv.h"
#include "ops/linalg/linalg_kernels.h"
#include "ops/linalg/linalg_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// A stride/padding/dilation list: one value for both spatial dims, or one per dim.
std::vector<SymInt> spatial_param(const OpArgs& args, const char* name) {
  const std::vector<SymInt>& v = args.sym_ints(name);
  XPORT_CHECK(v.size() == 1 || v.size() == 2, InvalidInput, args.name(), ": expected ", name,
              " to be a single integer value or a list of 2 values to match the convolution "
              "dimensions, but got ",
              name, "=", shape_str(v));
  return v.size() == 1 ? std::vector<SymInt>{v[0], v[0]} : v;
}

// The same for a kernel, whose lists the meta function checked.
std::array<int64_t, 2> spatial_param(const std::vector<int64_t>& v) {
  return {v[0], v.size() == 1 ? v[0] : v[1]};
}

std::vector<TensorMeta> convolution_meta(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const Tensor& weight = args.tensor("weight");
  const Tensor bias = args.optional_tensor("bias");
  XPORT_CHECK(!args.boolean("transposed"), UnsupportedOp, args.name(),
              ": transposed convolution is not supported yet; only 2-D forward convolution is");
  XPORT_CHECK(weight.dim() == 4, UnsupportedOp, args.name(),
              ": only 2-D convolution (4-D weight [out, in / groups, kh, kw]) is supported, got a ",
              weight.dim(), "-D weight of shape ", shape_str(weight.sizes()));
  XPORT_CHECK(input.dim() == 4, InvalidInput, args.name(), ": expected 4-D input for 4-D weight ",
              shape_str(weight.sizes()), ", but got ", input.dim(), "-D input of shape ",
              shape_str(input.sizes()), " instead; use conv2d for an unbatched 3-D input");
  XPORT_CHECK(input.dtype() == weight.dtype(), InvalidInput, args.name(), ": input type (",
              dtype_name(input.dtype()), ") and weight type (", dtype_name(weight.dtype()),
              ") should be the same; convert one with .to(dtype)");
  XPORT_CHECK(input.dtype() != DType::Bool, InvalidInput, args.name(),
              ": bool tensors are not supported");
  const std::vector<SymInt> stride = spatial_param(args, "stride");
  const std::vector<SymInt> padding = spatial_param(args, "padding");
  const std::vector<SymInt> dilation = spatial_param(args, "dilation");
  const int64_t groups = args.integer("groups");
  for (int d = 0; d < 2; ++d) {
    XPORT_CHECK(static_cast<bool>(stride[d] > 0), InvalidInput, args.name(),
                ": non-positive stride is not supported, got stride=", shape_str(stride));
    XPORT_CHECK(static_cast<bool>(padding[d] >= 0), InvalidInput, args.name(),
                ": negative padding is not supported, got padding=", shape_str(padding));
    XPORT_CHECK(static_cast<bool>(dilation[d] > 0), InvalidInput, args.name(),
                ": dilation should be greater than zero, got dilation=", shape_str(dilation));
  }
  XPORT_CHECK(groups > 0, InvalidInput, args.name(), ": non-positive groups is not supported, got ",
              groups);
  const SymInt& out_channels = weight.sizes()[0];
  XPORT_CHECK(
      static_cast<bool>(out_channels >= groups) && static_cast<bool>(out_channels % groups == 0),
      InvalidInput, args.name(), ": given groups=", groups, ", expected weight to be at least ",
      groups, " and divisible by ", groups, " at dimension 0, but got weight of shape ",
      shape_str(weight.sizes()));
  XPORT_CHECK(static_cast<bool>(input.sizes()[1] == weight.sizes()[1] * groups), InvalidInput,
              args.name(), ": given groups=", groups, ", weight of shape ",
              shape_str(weight.sizes()), " expects input ", shape_str(input.sizes()), " to have ",
              weight.sizes()[1] * groups, " channels, but got ", input.sizes()[1],
              " channels instead");
  if (bias.defined()) {
    XPORT_CHECK(bias.dim() == 1 && static_cast<bool>(bias.sizes()[0] == out_channels), InvalidInput,
                args.name(), ": given weight of shape ", shape_str(weight.sizes()),
                ", expected bias to be 1-D with ", out_channels,
                " elements, but got bias of shape ", shape_str(bias.sizes()), " instead");
  }
  std::vector<SymInt> sizes = {input.sizes()[0], out_channels};
  for (int d = 0; d < 2; ++d) {
    const SymInt padded = input.sizes()[2 + d] + padding[d] * 2;
    const SymInt kernel = dilation[d] * (weight.sizes()[2 + d] - 1) + 1;
    XPORT_CHECK(static_cast<bool>(padded >= kernel), InvalidInput, args.name(),
                ": calculated padded input size per channel: (", input.sizes()[2] + padding[0] * 2,
                " x ", input.sizes()[3] + padding[1] * 2, "), kernel size (dilated): (",
                dilation[0] * (weight.sizes()[2] - 1) + 1, " x ",
                dilation[1] * (weight.sizes()[3] - 1) + 1,
                "); the kernel can't be greater than the padded input");
    sizes.push_back((padded - kernel) / stride[d] + 1);
  }
  return {contiguous_meta(std::move(sizes), input.dtype())};
}

// conv2d: convolution of a batched 4-D input, or an unbatched 3-D one given a batch of one.
std::vector<Tensor> conv2d_decomp(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  XPORT_CHECK(input.dim() == 3 || input.dim() == 4, InvalidInput, args.name(),
              ": expected 3-D (unbatched) or 4-D (batched) input to conv2d, but got input of "
              "shape ",
              shape_str(input.sizes()));
  const bool unbatched = input.dim() == 3;
  const Tensor r = call1(
      XPORT_OP("aten::convolution"),
      {unbatched ? input.unsqueeze(0) : input, args.tensor("weight"), args["bias"],
       args.sym_ints("stride"), args.sym_ints("padding"), args.sym_ints("dilation"), false,
       std::vector<int64_t>{0, 0}, args.integer("groups")});
  return {unbatched ? r.squeeze(0) : r};
}

}  // namespace

void convolution_out(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                     const std::vector<int64_t>& dilation, bool, const std::vector<int64_t>&,
                     int64_t groups, const Tensor& out) {
  cpu::Conv2dParams p;
  p.stride = spatial_param(stride);
  p.padding = spatial_param(padding);
  p.dilation = spatial_param(dilation);
  p.groups = groups;
  cpu::conv2d_out(input, weight, bias.value_or(Tensor()), p, out);
}

void register_conv_ops() {
  register_op({
      .schema = "aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
                "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
                "SymInt groups) -> Tensor",
      .meta = convolution_meta,
      .kernel = XPORT_OP_KERNEL(convolution_out),
      .core = true,
  });
  register_op({
      .schema = "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, "
                "SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
      .decomp = conv2d_decomp,
  });
}

}  // namespace xport::ops
