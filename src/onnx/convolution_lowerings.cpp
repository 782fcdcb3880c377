// Convolution, its gradient, and col2im.
#include <numeric>

#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

void convolution(NodeLowering& n) {
  const size_t spatial = n.spec("input").sizes.size() - 2;
  std::vector<std::string> inputs{n.tensor("input"), n.tensor("weight")};
  if (!n.is_none("bias")) inputs.push_back(n.tensor("bias"));
  std::vector<::onnx::AttributeProto> attrs{
      attr("strides", per_dim(n, "stride", spatial)),
      attr("pads", twice(per_dim(n, "padding", spatial))),
      attr("dilations", per_dim(n, "dilation", spatial)),
      attr("group", n.integer("groups")),
  };
  if (n.flag("transposed")) {
    attrs.push_back(attr("output_padding", per_dim(n, "output_padding", spatial)));
    return n.emit("ConvTranspose", std::move(inputs), std::move(attrs));
  }
  n.emit("Conv", std::move(inputs), std::move(attrs));
}

std::vector<int64_t> iota_from(int64_t first, size_t count) {
  std::vector<int64_t> v(count);
  std::iota(v.begin(), v.end(), first);
  return v;
}

// `x` cut to `sizes` along its spatial dims (2, 3, ...).
std::string cut_spatial(GraphBuilder& g, const std::string& x,
                        const std::vector<sym::ExprPtr>& sizes) {
  const size_t spatial = sizes.size();
  return g.add("Slice", {x, g.ints(std::vector<int64_t>(spatial, 0)), g.shape(sizes),
                         g.ints(iota_from(2, spatial))});
}

std::vector<sym::ExprPtr> spatial_sizes(const ir::TensorSpec& spec) {
  return {spec.sizes.begin() + 2, spec.sizes.end()};
}

// convolution_backward of a (not transposed) convolution, the gradients output_mask asks for:
// - the input's: the transposed convolution of grad_output with the weight. Its last
//   (input + 2 * padding - span) mod stride positions are read by no window: output_padding
//   stride - 1 makes the result at least as long, and the cut to the input's sizes drops the
//   rest, so the sizes may be symbolic.
// - the weight's: a convolution of the input with grad_output as its kernel, with stride and
//   dilation swapped. The input's batch becomes the channels each group sums over
//   ([C_in/G, G*N, ...], group G) and grad_output's channels the kernels ([C_out, N, ...]);
//   the result [C_in/G, C_out, ...] is transposed, then cut to the kernel's sizes.
// - the bias's: grad_output summed over every dim but the channels.
void convolution_backward(NodeLowering& n) {
  if (n.flag("transposed")) n.refuse("the gradient of a transposed convolution");
  GraphBuilder& g = n.g;
  const ir::TensorSpec& input = n.spec("input");
  const size_t spatial = input.sizes.size() - 2;
  const DType t = n.spec("grad_output").dtype;
  const std::vector<int64_t> stride = per_dim(n, "stride", spatial);
  const std::vector<int64_t> padding = per_dim(n, "padding", spatial);
  const std::vector<int64_t> dilation = per_dim(n, "dilation", spatial);
  const int64_t groups = n.integer("groups");
  const std::string grad = n.tensor_as("grad_output", t);
  const std::vector<bool> mask = n.bools("output_mask");
  if (mask.at(0)) {
    std::vector<int64_t> output_padding;
    for (int64_t s : stride) output_padding.push_back(s - 1);
    const std::string full = g.add(
        "ConvTranspose", {grad, n.tensor_as("weight", t)},
        {attr("strides", stride), attr("pads", twice(padding)), attr("dilations", dilation),
         attr("group", groups), attr("output_padding", output_padding)});
    n.set(0, cut_spatial(g, full, spatial_sizes(input)));
  }
  if (mask.at(1)) {
    const sym::ExprPtr batch = input.sizes[0], group_count = sym::integer(groups);
    const sym::ExprPtr per_group = sym::floor_div(input.sizes[1], group_count);
    std::vector<sym::ExprPtr> split{batch, group_count, per_group};
    std::vector<sym::ExprPtr> channels_first{per_group, sym::mul(group_count, batch)};
    for (size_t d = 2; d < input.sizes.size(); ++d) {
      split.push_back(input.sizes[d]);
      channels_first.push_back(input.sizes[d]);
    }
    std::vector<int64_t> perm{2, 1, 0};
    for (size_t d = 0; d < spatial; ++d) perm.push_back(static_cast<int64_t>(3 + d));
    const std::string grouped = g.add("Reshape", {n.tensor_as("input", t), g.shape(split)});
    const std::string x = g.add(
        "Reshape", {g.add("Transpose", {grouped}, {attr("perm", perm)}), g.shape(channels_first)});
    std::vector<int64_t> swap{1, 0};
    for (size_t d = 0; d < spatial; ++d) swap.push_back(static_cast<int64_t>(2 + d));
    const std::string kernels = g.add("Transpose", {grad}, {attr("perm", swap)});
    const std::string sums = g.add("Conv", {x, kernels},
                                   {attr("strides", dilation), attr("pads", twice(padding)),
                                    attr("dilations", stride), attr("group", groups)});
    const std::string weight_grad = g.add("Transpose", {sums}, {attr("perm", swap)});
    n.set(1, cut_spatial(g, weight_grad, spatial_sizes(n.spec("weight"))));
  }
  if (mask.at(2)) {
    std::vector<int64_t> axes{0};
    for (size_t d = 0; d < spatial; ++d) axes.push_back(static_cast<int64_t>(2 + d));
    n.set(2, g.add("ReduceSum", {grad, g.ints(axes)}, {attr("keepdims", int64_t{0})}));
  }
}

// col2im: the sum of the blocks of `self` ([N, C * kh * kw, L] or [C * kh * kw, L]) into the
// padded image, then the padding cut. ONNX's Col2Im is an opset 18 op; at 17 each block
// element's place in the padded plane is a constant index, and ScatterElements adds them up.
// The image's sizes are static (output_size is int[2]); the batch and channels may be symbolic.
void col2im(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const std::vector<int64_t> image = n.integers("output_size");
  const std::vector<int64_t> kernel = per_dim(n, "kernel_size", 2);
  const std::vector<int64_t> dilation = per_dim(n, "dilation", 2);
  const std::vector<int64_t> padding = per_dim(n, "padding", 2);
  const std::vector<int64_t> stride = per_dim(n, "stride", 2);
  const int64_t padded_h = image[0] + 2 * padding[0], padded_w = image[1] + 2 * padding[1];
  const int64_t blocks_h = (padded_h - dilation[0] * (kernel[0] - 1) - 1) / stride[0] + 1;
  const int64_t blocks_w = (padded_w - dilation[1] * (kernel[1] - 1) - 1) / stride[1] + 1;
  const int64_t blocks = blocks_h * blocks_w, per_block = kernel[0] * kernel[1];
  std::vector<double> place;  // the place of element (ki, kj) of block l, in [K, L] order
  place.reserve(static_cast<size_t>(per_block * blocks));
  for (int64_t ki = 0; ki < kernel[0]; ++ki) {
    for (int64_t kj = 0; kj < kernel[1]; ++kj) {
      for (int64_t l = 0; l < blocks; ++l) {
        const int64_t h = (l / blocks_w) * stride[0] + ki * dilation[0];
        const int64_t w = (l % blocks_w) * stride[1] + kj * dilation[1];
        place.push_back(static_cast<double>(h * padded_w + w));
      }
    }
  }
  const std::vector<sym::ExprPtr>& out = n.out_spec().sizes;
  const bool has_batch = out.size() == 4;
  const sym::ExprPtr batch = has_batch ? out[0] : sym::integer(1);
  const sym::ExprPtr channels = out[out.size() - 3];
  const DType t = n.out_dtype();
  const std::string values = g.add(
      "Reshape", {n.tensor_as("self", t),
                  g.shape({batch, channels, sym::integer(per_block * blocks)})});
  const std::string index = g.add(
      "Expand", {g.constant(DType::Int64, place, {1, 1, per_block * blocks}),
                 g.add("Shape", {values})});
  const std::string zeros = g.add(
      "Expand", {g.scalar(t, 0), g.shape({batch, channels, sym::integer(padded_h * padded_w)})});
  const std::string sums =
      g.add("ScatterElements", {zeros, index, values},
            {attr("axis", int64_t{2}), attr("reduction", std::string("add"))});
  const std::string planes = g.add(
      "Reshape", {sums, g.shape({batch, channels, sym::integer(padded_h),
                                 sym::integer(padded_w)})});
  const std::string cut = g.add(
      "Slice", {planes, g.ints(padding), g.ints({padding[0] + image[0], padding[1] + image[1]}),
                g.ints({2, 3})});
  n.emit("Reshape", {cut, g.shape(out)});
}

}  // namespace

LoweringList convolution_lowerings() {
  return {
      {"aten::convolution", convolution},
      {"aten::convolution_backward", convolution_backward},
      {"aten::col2im", col2im},
  };
}

}  // namespace xport::onnx
