// xport::quantized_linear and xport::quantized_conv2d: the linear and convolution layers of a
// PT2E quantized program as one call each, which the quantized fusion
// (ir/passes/quantized_fusion.h) writes where it finds
//   linear / convolution(dequantize_per_tensor(x_q, s, z, ...),
//                        dequantize_per_channel(W_q, w_scales, 0, 0, ...), bias, ...)
// over int8 weights. Their kernels multiply the integers (kernels::cpu::PackedQuantizedLinear
// and PackedQuantizedConv2d, which the runtime keeps packed); their decompositions are the
// dequantize ops and the call they replaced. The .tensor overloads take the input's scale and
// zero point as one-element tensors (dynamic quantization's choose_qparams results).
// xport::quantized_add is the sum of two quantized tensors, quantized (XNNPACK's block end);
// xport::quantized_lookup an elementwise function of 8-bit values as a table of 256.
#include "kernels/cpu/quantized_add.h"
#include "kernels/cpu/quantized_lookup.h"
#include "kernels/cpu/quantized_conv.h"
#include "kernels/cpu/quantized_linear.h"
#include "ops/fused/fused_ops.h"
#include "ops/linalg/linalg_ops.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

// Checks what both quantized ops take: integer input and weights, float scales per output
// channel (the weights' dim 0), a float32 bias of as many, one-element scale and zero point
// tensors for the .tensor overloads.
void check_quantized_operands(const OpArgs& a, int64_t rank) {
  const Tensor& x = a.tensor("input");
  const Tensor& w = a.tensor("weight");
  XPORT_CHECK(x.dim() == rank && (x.dtype() == DType::UInt8 || x.dtype() == DType::Int8) &&
                  w.dim() == rank && w.dtype() == DType::Int8,
              InvalidInput, a.name(), ": takes a uint8 or int8 input and int8 weights of ", rank,
              " dims, got ", Value(x).str(), " and ", Value(w).str());
  const Tensor& scales = a.tensor("weight_scales");
  XPORT_CHECK(scales.dim() == 1 && static_cast<bool>(scales.size(0) == w.size(0)) &&
                  (scales.dtype() == DType::Float32 || scales.dtype() == DType::Float64),
              InvalidInput, a.name(), ": weight_scales must be float with one value per output "
              "channel (", w.size(0).str(), "), got ", Value(scales).str());
  const Tensor bias = a.optional_tensor("bias");
  XPORT_CHECK(!bias.defined() || (bias.dim() == 1 && bias.dtype() == DType::Float32 &&
                                  static_cast<bool>(bias.size(0) == w.size(0))),
              InvalidInput, a.name(), ": the bias must be float32 with one value per output "
              "channel, got ", Value(bias).str());
  if (a["input_scale"].is_tensor()) {
    for (const char* name : {"input_scale", "input_zero_point"}) {
      XPORT_CHECK(static_cast<bool>(a.tensor(name).numel() == 1), InvalidInput, a.name(), ": ",
                  name, " must hold one element, got ", Value(a.tensor(name)).str());
    }
  }
}

// The input and the weights dequantized, as the calls the fused op replaced did.
std::pair<Tensor, Tensor> dequantized(const OpArgs& a) {
  const Tensor& x = a.tensor("input");
  const bool tensors = a["input_scale"].is_tensor();
  const Value qmin = int64_t{x.dtype() == DType::UInt8 ? 0 : -128};
  const Value qmax = int64_t{x.dtype() == DType::UInt8 ? 255 : 127};
  const Tensor dq_x = call1(
      tensors ? XPORT_OP("quantized_decomposed::dequantize_per_tensor.tensor")
              : XPORT_OP("quantized_decomposed::dequantize_per_tensor"),
      {x, a["input_scale"], a["input_zero_point"], qmin, qmax, x.dtype(), Value()});
  const Tensor dq_w = call1(XPORT_OP("quantized_decomposed::dequantize_per_channel"),
                            {a["weight"], a["weight_scales"], Value(), int64_t{0}, int64_t{-128},
                             int64_t{127}, DType::Int8, Value()});
  return {dq_x, dq_w};
}

// The quantize over the whole range of a uint8 or int8 dtype.
Tensor quantize_whole_range(const Tensor& x, const Value& scale, const Value& zero_point,
                            DType dtype) {
  const bool u8 = dtype == DType::UInt8;
  return call1(XPORT_OP("quantized_decomposed::quantize_per_tensor"),
               {x, scale, zero_point, int64_t{u8 ? 0 : -128}, int64_t{u8 ? 255 : 127}, dtype});
}

Tensor dequantize_whole_range(const Tensor& q, const Value& scale, const Value& zero_point) {
  const bool u8 = q.dtype() == DType::UInt8;
  return call1(XPORT_OP("quantized_decomposed::dequantize_per_tensor"),
               {q, scale, zero_point, int64_t{u8 ? 0 : -128}, int64_t{u8 ? 255 : 127},
                q.dtype(), Value()});
}

std::vector<TensorMeta> quantized_linear_meta(const OpArgs& a) {
  check_quantized_operands(a, 2);
  const Tensor& x = a.tensor("input");
  const Tensor& w = a.tensor("weight");
  XPORT_CHECK(static_cast<bool>(x.size(1) == w.size(1)), InvalidInput, a.name(),
              ": multiplies an input [M, K] by weights [N, K], got ", Value(x).str(), " and ",
              Value(w).str());
  return {contiguous_meta({x.size(0), w.size(0)}, DType::Float32)};
}

std::vector<Tensor> quantized_linear_decomposition(const OpArgs& a) {
  const auto [dq_x, dq_w] = dequantized(a);
  return {call1(XPORT_OP("aten::linear"), {dq_x, dq_w, a["bias"]})};
}

// requantized_linear: the product's result, activated, quantized.
std::vector<TensorMeta> requantized_linear_meta(const OpArgs& a) {
  TensorMeta meta = quantized_linear_meta(a)[0];
  check_linear_activation(a);
  meta.dtype = a.dtype("output_dtype");
  XPORT_CHECK(meta.dtype == DType::UInt8 || meta.dtype == DType::Int8, InvalidInput, a.name(),
              ": output_dtype must be uint8 or int8, got ", dtype_name(meta.dtype));
  return {meta};
}

std::vector<Tensor> requantized_linear_decomposition(const OpArgs& a) {
  const Tensor y =
      apply_linear_activation(quantized_linear_decomposition(a)[0], a.str("activation"));
  return {quantize_whole_range(y, a["output_scale"], a["output_zero_point"],
                               a.dtype("output_dtype"))};
}

std::vector<TensorMeta> quantized_conv2d_meta(const OpArgs& a) {
  check_quantized_operands(a, 4);
  return {contiguous_meta(convolution_sizes(a, /*transposed=*/false), DType::Float32)};
}

std::vector<Tensor> quantized_conv2d_decomposition(const OpArgs& a) {
  const auto [dq_x, dq_w] = dequantized(a);
  return {call1(XPORT_OP("aten::convolution"),
                {dq_x, dq_w, a["bias"], a["stride"], a["padding"], a["dilation"], false,
                 std::vector<int64_t>{0, 0}, a["groups"]})};
}

// requantized_conv2d: the convolution's result, [plus a dequantized residual,] [ReLU,]
// quantized.
std::vector<TensorMeta> requantized_conv2d_meta(const OpArgs& a) {
  check_quantized_operands(a, 4);
  const DType out = a.dtype("output_dtype");
  XPORT_CHECK(out == DType::UInt8 || out == DType::Int8, InvalidInput, a.name(),
              ": output_dtype must be uint8 or int8, got ", dtype_name(out));
  const std::vector<SymInt> sizes = convolution_sizes(a, /*transposed=*/false);
  const Tensor residual = a.optional_tensor("residual");
  bool fits = !residual.defined() ||
              (residual.dtype() == out && residual.dim() == static_cast<int64_t>(sizes.size()));
  for (size_t d = 0; fits && residual.defined() && d < sizes.size(); ++d) {
    fits = static_cast<bool>(residual.size(static_cast<int64_t>(d)) == sizes[d]);
  }
  XPORT_CHECK(fits, InvalidInput, a.name(), ": the residual must be of the result's dtype and "
              "shape (", dtype_name(out), " ", shape_str(sizes), "), got ", Value(residual).str());
  const bool quantize_conv = !a["conv_scale"].is_none();
  const std::optional<DType> conv_dtype =
      a["conv_dtype"].is_none() ? std::nullopt : std::optional(a.dtype("conv_dtype"));
  XPORT_CHECK(quantize_conv == conv_dtype.has_value() &&
                  (!conv_dtype || *conv_dtype == DType::UInt8 || *conv_dtype == DType::Int8),
              InvalidInput, a.name(), ": conv_scale and conv_dtype (uint8 or int8) come together "
              "(the convolution's result quantized first), got ", a["conv_scale"].str(), " and ",
              a["conv_dtype"].str());
  return {contiguous_meta(sizes, out)};
}

std::vector<Tensor> requantized_conv2d_decomposition(const OpArgs& a) {
  Tensor y = quantized_conv2d_decomposition(a)[0];
  if (!a["conv_scale"].is_none()) {
    y = dequantize_whole_range(
        quantize_whole_range(y, a["conv_scale"], a["conv_zero_point"], a.dtype("conv_dtype")),
        a["conv_scale"], a["conv_zero_point"]);
  }
  const Tensor residual = a.optional_tensor("residual");
  if (residual.defined()) {
    y = call1(XPORT_OP("aten::add.Tensor"),
              {y, dequantize_whole_range(residual, a["residual_scale"],
                                         a["residual_zero_point"])});
  }
  if (a.boolean("relu")) y = call1(XPORT_OP("aten::relu"), {y});
  return {quantize_whole_range(y, a["output_scale"], a["output_zero_point"],
                               a.dtype("output_dtype"))};
}

// requantized_conv2d_: written over its residual, whose last reader it is (the runtime chooses
// this form).
std::vector<TensorMeta> requantized_conv2d_in_place_meta(const OpArgs& a) {
  requantized_conv2d_meta(a);
  return {a.tensor("residual").meta()};
}

std::vector<Tensor> requantized_conv2d_in_place_decomposition(const OpArgs& a) {
  Tensor residual = a.tensor("residual");
  residual.copy_(requantized_conv2d_decomposition(a)[0]);
  return {residual};
}

// quantized_add: two 8-bit tensors of one shape, an 8-bit result of it.
std::vector<TensorMeta> quantized_add_meta(const OpArgs& a) {
  const Tensor& self = a.tensor("self");
  const Tensor& other = a.tensor("other");
  const auto is_8bit = [](DType d) { return d == DType::UInt8 || d == DType::Int8; };
  XPORT_CHECK(is_8bit(self.dtype()) && is_8bit(other.dtype()) &&
                  is_8bit(a.dtype("output_dtype")),
              InvalidInput, a.name(), ": adds uint8 or int8 tensors into uint8 or int8, got ",
              Value(self).str(), ", ", Value(other).str(), " into ",
              dtype_name(a.dtype("output_dtype")));
  bool same = self.dim() == other.dim();
  for (int64_t d = 0; same && d < self.dim(); ++d) {
    same = static_cast<bool>(self.size(d) == other.size(d));
  }
  XPORT_CHECK(same, InvalidInput, a.name(), ": adds tensors of one shape (no broadcasting), got ",
              Value(self).str(), " and ", Value(other).str());
  return {contiguous_meta(self.sizes(), a.dtype("output_dtype"))};
}

std::vector<Tensor> quantized_add_decomposition(const OpArgs& a) {
  Tensor y = call1(XPORT_OP("aten::add.Tensor"),
                   {dequantize_whole_range(a.tensor("self"), a["self_scale"],
                                           a["self_zero_point"]),
                    dequantize_whole_range(a.tensor("other"), a["other_scale"],
                                           a["other_zero_point"])});
  if (a.boolean("relu")) y = call1(XPORT_OP("aten::relu"), {y});
  return {quantize_whole_range(y, a["output_scale"], a["output_zero_point"],
                               a.dtype("output_dtype"))};
}

// quantized_lookup: a table of 256 8-bit values, indexed by 8-bit values.
std::vector<TensorMeta> quantized_lookup_meta(const OpArgs& a) {
  const Tensor& self = a.tensor("self");
  const Tensor& table = a.tensor("table");
  const auto is_8bit = [](DType d) { return d == DType::UInt8 || d == DType::Int8; };
  XPORT_CHECK(is_8bit(self.dtype()) && is_8bit(table.dtype()) && table.dim() == 1 &&
                  static_cast<bool>(table.size(0) == 256),
              InvalidInput, a.name(), ": looks uint8 or int8 values up in a table of 256 uint8 "
              "or int8 values, got ", Value(self).str(), " and a table ", Value(table).str());
  return {contiguous_meta(self.sizes(), table.dtype())};
}

std::vector<Tensor> quantized_lookup_decomposition(const OpArgs& a) {
  const Tensor& self = a.tensor("self");
  Tensor index = call1(XPORT_OP("aten::_to_copy"), {self, DType::Int64});
  if (self.dtype() == DType::Int8) {
    index = call1(XPORT_OP("aten::add.Scalar"), {index, int64_t{128}});
  }
  return {call1(XPORT_OP("aten::index.Tensor"),
                {a.tensor("table"), std::vector<Tensor>{index}})};
}

void run_quantized_conv2d(const Tensor& input, double input_scale, int64_t input_zero_point,
                          const Tensor& weight, const Tensor& weight_scales,
                          const std::optional<Tensor>& bias, const std::vector<int64_t>& stride,
                          const std::vector<int64_t>& padding,
                          const std::vector<int64_t>& dilation, int64_t groups,
                          bool fixed_input_scale, const Tensor& out) {
  const kernels::cpu::PackedQuantizedConv2d packed(
      weight, weight_scales, bias.value_or(Tensor()),
      kernels::cpu::Conv2dParams::of(stride, padding, dilation, groups), std::nullopt,
      fixed_input_scale);
  packed.run(input, input_scale, input_zero_point, Tensor(), out);
}

void run_quantized_linear(const Tensor& input, double input_scale, int64_t input_zero_point,
                          const Tensor& weight, const Tensor& weight_scales,
                          const std::optional<Tensor>& bias, bool fixed_input_scale,
                          const Tensor& out) {
  const kernels::cpu::PackedQuantizedLinear packed(weight, weight_scales, bias.value_or(Tensor()),
                                                   fixed_input_scale);
  packed.run(input, input_scale, input_zero_point, out);
}

}  // namespace

void xport_quantized_linear_out(const Tensor& input, double input_scale,
                                int64_t input_zero_point, const Tensor& weight,
                                const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                const Tensor& out) {
  run_quantized_linear(input, input_scale, input_zero_point, weight, weight_scales, bias,
                       /*fixed_input_scale=*/true, out);
}

void xport_requantized_linear_out(const Tensor& input, double input_scale,
                                  int64_t input_zero_point, const Tensor& weight,
                                  const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                  const std::string& activation, double output_scale,
                                  int64_t output_zero_point, DType output_dtype,
                                  const Tensor& out) {
  const kernels::cpu::PackedQuantizedLinear packed(
      weight, weight_scales, bias.value_or(Tensor()), /*fixed_input_scale=*/true,
      kernels::cpu::LinearRequantize{.activation = kernels::cpu::linear_activation(activation),
                                     .output_scale = output_scale,
                                     .output_zero_point = output_zero_point,
                                     .dtype = output_dtype});
  packed.run(input, input_scale, input_zero_point, out);
}

void xport_quantized_linear_tensor_out(const Tensor& input, const Tensor& input_scale,
                                       const Tensor& input_zero_point, const Tensor& weight,
                                       const Tensor& weight_scales,
                                       const std::optional<Tensor>& bias, const Tensor& out) {
  run_quantized_linear(input, input_scale.item<double>(), input_zero_point.item<int64_t>(),
                       weight, weight_scales, bias, /*fixed_input_scale=*/false, out);
}

void xport_quantized_conv2d_out(const Tensor& input, double input_scale,
                                int64_t input_zero_point, const Tensor& weight,
                                const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                const std::vector<int64_t>& stride,
                                const std::vector<int64_t>& padding,
                                const std::vector<int64_t>& dilation, int64_t groups,
                                const Tensor& out) {
  run_quantized_conv2d(input, input_scale, input_zero_point, weight, weight_scales, bias, stride,
                       padding, dilation, groups, /*fixed_input_scale=*/true, out);
}

void xport_requantized_conv2d_out(const Tensor& input, double input_scale,
                                  int64_t input_zero_point, const Tensor& weight,
                                  const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                  const std::vector<int64_t>& stride,
                                  const std::vector<int64_t>& padding,
                                  const std::vector<int64_t>& dilation, int64_t groups,
                                  bool relu, double output_scale, int64_t output_zero_point,
                                  DType output_dtype, const std::optional<Tensor>& residual,
                                  double residual_scale, int64_t residual_zero_point,
                                  std::optional<double> conv_scale, int64_t conv_zero_point,
                                  std::optional<DType> conv_dtype, const Tensor& out) {
  const kernels::cpu::PackedQuantizedConv2d packed(
      weight, weight_scales, bias.value_or(Tensor()),
      kernels::cpu::Conv2dParams::of(stride, padding, dilation, groups),
      kernels::cpu::Requantize{.relu = relu,
                               .output_scale = output_scale,
                               .output_zero_point = output_zero_point,
                               .dtype = output_dtype,
                               .residual = residual.has_value(),
                               .residual_scale = residual_scale,
                               .residual_zero_point = residual_zero_point,
                               .quantize_conv = conv_scale.has_value(),
                               .conv_scale = conv_scale.value_or(1.0),
                               .conv_zero_point = conv_zero_point,
                               .conv_dtype = conv_dtype.value_or(DType::Int8)});
  packed.run(input, input_scale, input_zero_point, residual.value_or(Tensor()), out);
}

// `out` is the residual.
void xport_requantized_conv2d__out(const Tensor& input, double input_scale,
                                   int64_t input_zero_point, const Tensor& weight,
                                   const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                   const std::vector<int64_t>& stride,
                                   const std::vector<int64_t>& padding,
                                   const std::vector<int64_t>& dilation, int64_t groups,
                                   bool relu, double output_scale, int64_t output_zero_point,
                                   DType output_dtype, const Tensor& residual,
                                   double residual_scale, int64_t residual_zero_point,
                                   std::optional<double> conv_scale, int64_t conv_zero_point,
                                   std::optional<DType> conv_dtype, const Tensor& out) {
  xport_requantized_conv2d_out(input, input_scale, input_zero_point, weight, weight_scales, bias,
                               stride, padding, dilation, groups, relu, output_scale,
                               output_zero_point, output_dtype, residual, residual_scale,
                               residual_zero_point, conv_scale, conv_zero_point, conv_dtype,
                               out);
}

void xport_quantized_conv2d_tensor_out(const Tensor& input, const Tensor& input_scale,
                                       const Tensor& input_zero_point, const Tensor& weight,
                                       const Tensor& weight_scales,
                                       const std::optional<Tensor>& bias,
                                       const std::vector<int64_t>& stride,
                                       const std::vector<int64_t>& padding,
                                       const std::vector<int64_t>& dilation, int64_t groups,
                                       const Tensor& out) {
  // The scales given at run time, as the runtime runs dynamic quantization.
  run_quantized_conv2d(input, input_scale.item<double>(), input_zero_point.item<int64_t>(),
                       weight, weight_scales, bias, stride, padding, dilation, groups,
                       /*fixed_input_scale=*/false, out);
}

void xport_quantized_add_out(const Tensor& self, double self_scale, int64_t self_zero_point,
                             const Tensor& other, double other_scale, int64_t other_zero_point,
                             bool relu, double output_scale, int64_t output_zero_point,
                             DType /*output_dtype: out's*/, const Tensor& out) {
  kernels::cpu::quantized_add_out({self, self_scale, self_zero_point},
                                  {other, other_scale, other_zero_point}, relu, output_scale,
                                  output_zero_point, out);
}

void xport_quantized_lookup_out(const Tensor& self, const Tensor& table, const Tensor& out) {
  kernels::cpu::quantized_lookup_out(self, table, out);
}

void register_quantized_ops() {
  register_op({
      .schema = "xport::quantized_linear(Tensor input, float input_scale, int input_zero_point, "
                "Tensor weight, Tensor weight_scales, Tensor? bias=None) -> Tensor",
      .meta = quantized_linear_meta,
      .kernel = XPORT_OP_KERNEL(xport_quantized_linear_out),
      .decomp = quantized_linear_decomposition,
  });
  register_op({
      .schema = "xport::quantized_linear.tensor(Tensor input, Tensor input_scale, "
                "Tensor input_zero_point, Tensor weight, Tensor weight_scales, "
                "Tensor? bias=None) -> Tensor",
      .meta = quantized_linear_meta,
      .kernel = XPORT_OP_KERNEL(xport_quantized_linear_tensor_out),
      .decomp = quantized_linear_decomposition,
  });
  // The activation and quantize after it done by the product (static quantization over the
  // output dtype's whole range).
  register_op({
      .schema = "xport::requantized_linear(Tensor input, float input_scale, "
                "int input_zero_point, Tensor weight, Tensor weight_scales, Tensor? bias, "
                "str activation, float output_scale, int output_zero_point, "
                "ScalarType output_dtype) -> Tensor",
      .meta = requantized_linear_meta,
      .kernel = XPORT_OP_KERNEL(xport_requantized_linear_out),
      .decomp = requantized_linear_decomposition,
  });
  const std::string conv = "Tensor weight, Tensor weight_scales, Tensor? bias, SymInt[] stride, "
                           "SymInt[] padding, SymInt[] dilation, SymInt groups) -> Tensor";
  register_op({
      .schema = "xport::quantized_conv2d(Tensor input, float input_scale, "
                "int input_zero_point, " + conv,
      .meta = quantized_conv2d_meta,
      .kernel = XPORT_OP_KERNEL(xport_quantized_conv2d_out),
      .decomp = quantized_conv2d_decomposition,
  });
  // The quantize after it (and a residual add, and a ReLU between) done by the convolution:
  // static quantization over the output dtype's whole range. With conv_scale, the
  // convolution's result is quantized (to conv_dtype's whole range) and dequantized first
  // (XNNPACK's block end).
  register_op({
      .schema = "xport::requantized_conv2d(Tensor input, float input_scale, "
                "int input_zero_point, Tensor weight, Tensor weight_scales, Tensor? bias, "
                "SymInt[] stride, SymInt[] padding, SymInt[] dilation, SymInt groups, "
                "bool relu, float output_scale, int output_zero_point, "
                "ScalarType output_dtype, Tensor? residual=None, float residual_scale=1., "
                "int residual_zero_point=0, float? conv_scale=None, int conv_zero_point=0, "
                "ScalarType? conv_dtype=None) -> Tensor",
      .meta = requantized_conv2d_meta,
      .kernel = XPORT_OP_KERNEL(xport_requantized_conv2d_out),
      .decomp = requantized_conv2d_decomposition,
  });
  // Written over its residual, whose last reader it is (the runtime chooses this form).
  register_op({
      .schema = "xport::requantized_conv2d_(Tensor input, float input_scale, "
                "int input_zero_point, Tensor weight, Tensor weight_scales, Tensor? bias, "
                "SymInt[] stride, SymInt[] padding, SymInt[] dilation, SymInt groups, "
                "bool relu, float output_scale, int output_zero_point, "
                "ScalarType output_dtype, Tensor(a!) residual, float residual_scale, "
                "int residual_zero_point, float? conv_scale=None, int conv_zero_point=0, "
                "ScalarType? conv_dtype=None) -> Tensor(a!)",
      .meta = requantized_conv2d_in_place_meta,
      .kernel = XPORT_OP_KERNEL(xport_requantized_conv2d__out),
      .decomp = requantized_conv2d_in_place_decomposition,
  });
  // quantize(relu?(dequantize(self) + dequantize(other))), each over its dtype's whole range.
  register_op({
      .schema = "xport::quantized_add(Tensor self, float self_scale, int self_zero_point, "
                "Tensor other, float other_scale, int other_zero_point, bool relu, "
                "float output_scale, int output_zero_point, ScalarType output_dtype) -> Tensor",
      .meta = quantized_add_meta,
      .kernel = XPORT_OP_KERNEL(xport_quantized_add_out),
      .decomp = quantized_add_decomposition,
  });
  // table[self] (int8 self: table[self + 128]).
  register_op({
      .schema = "xport::quantized_lookup(Tensor self, Tensor table) -> Tensor",
      .meta = quantized_lookup_meta,
      .kernel = XPORT_OP_KERNEL(xport_quantized_lookup_out),
      .decomp = quantized_lookup_decomposition,
  });
  register_op({
      .schema = "xport::quantized_conv2d.tensor(Tensor input, Tensor input_scale, "
                "Tensor input_zero_point, " + conv,
      .meta = quantized_conv2d_meta,
      .kernel = XPORT_OP_KERNEL(xport_quantized_conv2d_tensor_out),
      .decomp = quantized_conv2d_decomposition,
  });
}

}  // namespace xport::ops
