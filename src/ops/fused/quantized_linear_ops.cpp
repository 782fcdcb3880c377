// xport::quantized_linear: the linear layer of a PT2E quantized program as one call, which the
// quantized fusion (ir/passes/quantized_fusion.h) writes where it finds
//   linear(dequantize_per_tensor(x_q, s, z, ...), dequantize_per_channel(W_q, w_scales, 0, 0,
//          ...), bias)
// over int8 weights. Its kernel multiplies the integers (kernels::cpu::PackedQuantizedLinear,
// which the runtime keeps packed); its decomposition is the dequantize ops and the linear it
// replaced. The .tensor overload takes the input's scale and zero point as one-element tensors
// (dynamic quantization's choose_qparams results).
#include "kernels/cpu/quantized_linear.h"
#include "ops/fused/fused_ops.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

std::vector<TensorMeta> quantized_linear_meta(const OpArgs& a) {
  const Tensor& x = a.tensor("input");
  const Tensor& w = a.tensor("weight");
  const Tensor& scales = a.tensor("weight_scales");
  XPORT_CHECK(x.dim() == 2 && (x.dtype() == DType::UInt8 || x.dtype() == DType::Int8) &&
                  w.dim() == 2 && w.dtype() == DType::Int8 &&
                  static_cast<bool>(x.size(1) == w.size(1)),
              InvalidInput, a.name(), ": multiplies a uint8 or int8 input [M, K] by an int8 "
              "weight [N, K], got ", Value(x).str(), " and ", Value(w).str());
  XPORT_CHECK(scales.dim() == 1 && static_cast<bool>(scales.size(0) == w.size(0)) &&
                  (scales.dtype() == DType::Float32 || scales.dtype() == DType::Float64),
              InvalidInput, a.name(), ": weight_scales must be float [N], got ",
              Value(scales).str());
  const Tensor bias = a.optional_tensor("bias");
  XPORT_CHECK(!bias.defined() || (bias.dim() == 1 && bias.dtype() == DType::Float32 &&
                                  static_cast<bool>(bias.size(0) == w.size(0))),
              InvalidInput, a.name(), ": the bias must be float32 [N], got ", Value(bias).str());
  if (a["input_scale"].is_tensor()) {
    for (const char* name : {"input_scale", "input_zero_point"}) {
      XPORT_CHECK(static_cast<bool>(a.tensor(name).numel() == 1), InvalidInput, a.name(), ": ",
                  name, " must hold one element, got ", Value(a.tensor(name)).str());
    }
  }
  return {contiguous_meta({x.size(0), w.size(0)}, DType::Float32)};
}

// The calls it replaced: the input and the weights dequantized, then aten::linear.
std::vector<Tensor> quantized_linear_decomposition(const OpArgs& a) {
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
  return {call1(XPORT_OP("aten::linear"), {dq_x, dq_w, a["bias"]})};
}

void run_quantized_linear(const Tensor& input, double input_scale, int64_t input_zero_point,
                          const Tensor& weight, const Tensor& weight_scales,
                          const std::optional<Tensor>& bias, const Tensor& out) {
  const kernels::cpu::PackedQuantizedLinear packed(weight, weight_scales, bias.value_or(Tensor()));
  packed.run(input, input_scale, input_zero_point, out);
}

}  // namespace

void xport_quantized_linear_out(const Tensor& input, double input_scale,
                                int64_t input_zero_point, const Tensor& weight,
                                const Tensor& weight_scales, const std::optional<Tensor>& bias,
                                const Tensor& out) {
  run_quantized_linear(input, input_scale, input_zero_point, weight, weight_scales, bias, out);
}

void xport_quantized_linear_tensor_out(const Tensor& input, const Tensor& input_scale,
                                       const Tensor& input_zero_point, const Tensor& weight,
                                       const Tensor& weight_scales,
                                       const std::optional<Tensor>& bias, const Tensor& out) {
  run_quantized_linear(input, input_scale.item<double>(), input_zero_point.item<int64_t>(),
                       weight, weight_scales, bias, out);
}

void register_quantized_linear_ops() {
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
}

}  // namespace xport::ops
