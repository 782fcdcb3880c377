// The ops the shared fusion pass (ir/passes/fusion.h) writes into a graph. Each does in one call
// what the ops it replaced did, so a backend can give it one kernel (the runtime runs them on
// packed weights, or as one pass over memory). Like any op, each has a meta function, a CPU
// kernel (here: the ops it replaced, run one after another) and a decomposition back into them.
#include <algorithm>

#include "ops/fused/fused_ops.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

using fused_conv2d_args::kConvolution;

std::vector<Value> leading(const OpArgs& a, size_t n) {
  return {a.values().begin(), a.values().begin() + static_cast<std::ptrdiff_t>(n)};
}

bool same_layout(const Tensor& t, const TensorMeta& m) {
  const std::vector<SymInt> sizes = t.sizes();
  return t.dtype() == m.dtype && sizes.size() == m.sizes.size() &&
         std::equal(sizes.begin(), sizes.end(), m.sizes.begin(),
                    [](const SymInt& x, const SymInt& y) { return x.is_same(y); });
}

std::vector<TensorMeta> fused_conv_meta(const OpArgs& a) {
  const OpDef& conv = XPORT_OP("aten::convolution");
  std::vector<TensorMeta> out = conv.meta(OpArgs(conv, leading(a, kConvolution)));
  const Tensor residual = a.optional_tensor("residual");
  XPORT_CHECK(!residual.defined() || same_layout(residual, out[0]), InvalidInput, a.name(),
              ": the residual is ", Value(residual).str(), ", the convolution gives ",
              dtype_name(out[0].dtype), shape_str(out[0].sizes), "; they must match");
  return out;
}

// relu(convolution(...) + residual), the residual (when defined) and the ReLU each optional.
Tensor fused_conv(std::vector<Value> convolution_args, const Tensor& residual, bool apply_relu) {
  Tensor y = call1(XPORT_OP("aten::convolution"), std::move(convolution_args));
  if (residual.defined()) y = add(y, residual);
  if (apply_relu) y = relu(y);
  return y;
}

std::vector<Tensor> fused_conv_decomposition(const OpArgs& a) {
  return {fused_conv(leading(a, kConvolution), a.optional_tensor("residual"), a.boolean("relu"))};
}

// The in-place form's result is its residual, as it lies.
std::vector<TensorMeta> fused_conv_in_place_meta(const OpArgs& a) {
  fused_conv_meta(a);
  return {a.tensor("residual").meta()};
}

std::vector<Tensor> fused_conv_in_place_decomposition(const OpArgs& a) {
  Tensor residual = a.tensor("residual");
  residual.copy_(fused_conv_decomposition(a)[0]);
  return {residual};
}

std::vector<TensorMeta> fused_linear_meta(const OpArgs& a) {
  const Tensor& x = a.tensor("input");
  const Tensor& w = a.tensor("weight");
  XPORT_CHECK(x.dim() == 2 && w.dim() == 2 && x.size(1).is_same(w.size(0)) &&
                  x.dtype() == w.dtype(),
              InvalidInput, a.name(), ": multiplies an [M, K] input by a [K, N] weight of its "
              "dtype, got ", Value(x).str(), " and ", Value(w).str());
  const Tensor bias = a.optional_tensor("bias");
  XPORT_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0).is_same(w.size(1))),
              InvalidInput, a.name(), ": the bias must be [N] for a [K, N] weight, got ",
              Value(bias).str());
  check_linear_activation(a);
  return {contiguous_meta({x.size(0), w.size(1)}, x.dtype())};
}

// activation(input @ weight + bias), the bias used when defined.
Tensor fused_linear(const Tensor& input, const Tensor& weight, const Tensor& bias,
                    const std::string& act) {
  Tensor y = bias.defined() ? call1(XPORT_OP("aten::addmm"), {bias, input, weight})
                            : call1(XPORT_OP("aten::mm"), {input, weight});
  return apply_linear_activation(y, act);
}

std::vector<Tensor> fused_linear_decomposition(const OpArgs& a) {
  return {fused_linear(a.tensor("input"), a.tensor("weight"), a.optional_tensor("bias"),
                       a.str("activation"))};
}

// The body's inputs are the op's, all float32 of one size (the pass only fuses such chains);
// the result has their size.
std::vector<TensorMeta> fused_pointwise_meta(const OpArgs& a) {
  const std::vector<Tensor>& inputs = a.tensors("inputs");
  XPORT_CHECK(!inputs.empty(), InvalidInput, a.name(), ": needs at least one input");
  const TensorMeta out = contiguous_meta(inputs[0].sizes(), DType::Float32);
  for (const Tensor& t : inputs) {
    XPORT_CHECK(same_layout(t, out), InvalidInput, a.name(), ": every input is float32 of ",
                "one size, got ", Value(inputs[0]).str(), " and ", Value(t).str());
  }
  return {out};
}

std::vector<Tensor> fused_pointwise_body(const OpArgs& a) {
  std::vector<Tensor> outs = a["body"].to_graph()(a.tensors("inputs"));
  XPORT_CHECK(outs.size() == 1, InvalidInput, a.name(), ": the body returned ", outs.size(),
              " tensors; it returns one");
  if (!outs[0].is_contiguous()) outs[0] = outs[0].contiguous();
  return outs;
}

constexpr const char* kConvArguments =
    "Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
    "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups";

// aten::convolution's arguments, as the fused op's first nine.
std::vector<Value> convolution_args(const Tensor& input, const Tensor& weight,
                                    const std::optional<Tensor>& bias,
                                    const std::vector<int64_t>& stride,
                                    const std::vector<int64_t>& padding,
                                    const std::vector<int64_t>& dilation, bool transposed,
                                    const std::vector<int64_t>& output_padding, int64_t groups) {
  const Value b = bias ? Value(*bias) : Value();
  return {input, weight, b, stride, padding, dilation, transposed, output_padding, groups};
}

}  // namespace

void check_linear_activation(const OpArgs& a) {
  const std::string& act = a.str("activation");
  XPORT_CHECK(act == "none" || act == "relu" || act == "gelu" || act == "gelu_tanh",
              InvalidInput, a.name(), ": activation '", act,
              "' is none of none, relu, gelu, gelu_tanh");
}

Tensor apply_linear_activation(Tensor y, const std::string& activation) {
  if (activation == "relu") return relu(y);
  if (activation == "gelu") return gelu(y, "none");
  if (activation == "gelu_tanh") return gelu(y, "tanh");
  return y;
}

void xport_fused_conv2d_out(const Tensor& input, const Tensor& weight,
                            const std::optional<Tensor>& bias, const std::vector<int64_t>& stride,
                            const std::vector<int64_t>& padding,
                            const std::vector<int64_t>& dilation, bool transposed,
                            const std::vector<int64_t>& output_padding, int64_t groups,
                            const std::optional<Tensor>& residual, bool relu, const Tensor& out) {
  Tensor(out).copy_(fused_conv(convolution_args(input, weight, bias, stride, padding, dilation,
                                                transposed, output_padding, groups),
                               residual.value_or(Tensor()), relu));
}
// `out` is the residual.
void xport_fused_conv2d__out(const Tensor& input, const Tensor& weight,
                             const std::optional<Tensor>& bias,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding,
                             const std::vector<int64_t>& dilation, bool transposed,
                             const std::vector<int64_t>& output_padding, int64_t groups,
                             const Tensor& residual, bool relu, const Tensor& out) {
  Tensor(out).copy_(fused_conv(convolution_args(input, weight, bias, stride, padding, dilation,
                                                transposed, output_padding, groups),
                               residual, relu));
}
void xport_fused_linear_out(const Tensor& input, const Tensor& weight,
                            const std::optional<Tensor>& bias, const std::string& activation,
                            const Tensor& out) {
  Tensor(out).copy_(fused_linear(input, weight, bias.value_or(Tensor()), activation));
}

void register_fused_ops() {
  register_op({
      .schema = std::string("xport::fused_conv2d(") + kConvArguments +
                ", Tensor? residual=None, bool relu=False) -> Tensor",
      .meta = fused_conv_meta,
      .kernel = XPORT_OP_KERNEL(xport_fused_conv2d_out),
      .decomp = fused_conv_decomposition,
  });
  // Written over its residual, whose last reader it is (the runtime chooses this form).
  register_op({
      .schema = std::string("xport::fused_conv2d_(") + kConvArguments +
                ", Tensor(a!) residual, bool relu=False) -> Tensor(a!)",
      .meta = fused_conv_in_place_meta,
      .kernel = XPORT_OP_KERNEL(xport_fused_conv2d__out),
      .decomp = fused_conv_in_place_decomposition,
  });
  register_op({
      .schema = "xport::fused_linear(Tensor input, Tensor weight, Tensor? bias=None, "
                "str activation=\"none\") -> Tensor",
      .meta = fused_linear_meta,
      .kernel = XPORT_OP_KERNEL(xport_fused_linear_out),
      .decomp = fused_linear_decomposition,
  });
  // A chain of elementwise ops, each reading the one before, as a subgraph over its inputs:
  // one pass over memory where the backend can (the runtime's PointwiseChain).
  register_op({
      .schema = "xport::fused_pointwise(GraphModule body, Tensor[] inputs) -> Tensor",
      .meta = fused_pointwise_meta,
      .cpu_alloc = fused_pointwise_body,
      .decomp = fused_pointwise_body,
      .subgraph_uses = {{.graph_arg = 0, .inputs = {1}}},
  });
}

}  // namespace xport::ops
