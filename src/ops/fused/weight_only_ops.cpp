// xport::weight_only_linear: a linear layer whose weights are integers and whose activations are
// float (weight-only quantization); xport::bf16_linear, one whose weights are bfloat16. The
// quantized fusion writes them where a float input meets
// dequantize_per_channel (int8) or dequantize_per_channel_group (int4) of constant weights. The
// kernel converts each weight in registers (kernels/cpu/weight_only_linear.h); the int4 form
// takes the weights packed two to a byte (kernels::cpu::pack_int4). Its decomposition unpacks
// and dequantizes them and calls aten::linear.
#include "kernels/cpu/weight_only_linear.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

std::vector<TensorMeta> weight_only_linear_meta(const OpArgs& a) {
  const Tensor& x = a.tensor("input");
  const Tensor& w = a.tensor("weight");
  const int64_t bits = a.integer("bits");
  XPORT_CHECK(bits == 8 || bits == 4, InvalidInput, a.name(), ": bits must be 8 or 4, got ",
              bits);
  XPORT_CHECK(x.dim() >= 1 && x.dtype() == DType::Float32, InvalidInput, a.name(),
              ": takes a float32 input, got ", Value(x).str());
  const DType packed = bits == 8 ? DType::Int8 : DType::UInt8;
  XPORT_CHECK(w.dim() == 2 && w.dtype() == packed, InvalidInput, a.name(), ": takes ",
              bits == 8 ? "int8 weights [N, K]" : "packed int4 weights, uint8 [N, K / 2]",
              ", got ", Value(w).str());
  const int64_t n = w.int_size(0), k = w.int_size(1) * (bits == 8 ? 1 : 2);
  XPORT_CHECK(static_cast<bool>(x.sizes().back() == k), InvalidInput, a.name(),
              ": the input's last dim must be the weights' ", k, ", got ", Value(x).str());
  const int64_t group = a.integer("group_size");
  XPORT_CHECK(bits == 8 || k % 128 == 0, InvalidInput, a.name(), ": packed int4 weights "
              "come in runs of 128 values: K must be a multiple of 128, got ", k);
  XPORT_CHECK(group > 0 && k % group == 0 && (bits == 8 || group % 16 == 0), InvalidInput,
              a.name(), ": group_size ", group, " must divide K = ", k,
              bits == 4 ? " and be a multiple of 16" : "");
  const Tensor& scales = a.tensor("scales");
  XPORT_CHECK(scales.dtype() == DType::Float32 && scales.int_numel() == n * (k / group),
              InvalidInput, a.name(), ": scales must be float32, one per output and group (",
              n * (k / group), "), got ", Value(scales).str());
  const Tensor zeros = a.optional_tensor("zero_points");
  XPORT_CHECK(!zeros.defined() || (zeros.dtype() == DType::Float32 &&
                                   zeros.int_numel() == scales.int_numel()),
              InvalidInput, a.name(), ": zero_points must be float32 like scales, got ",
              Value(zeros).str());
  const Tensor bias = a.optional_tensor("bias");
  XPORT_CHECK(!bias.defined() || (bias.dtype() == DType::Float32 && bias.dim() == 1 &&
                                  bias.int_size(0) == n),
              InvalidInput, a.name(), ": the bias must be float32 [", n, "], got ",
              Value(bias).str());
  std::vector<SymInt> sizes(x.sizes().begin(), x.sizes().end() - 1);
  sizes.emplace_back(n);
  return {contiguous_meta(sizes, DType::Float32)};
}

// The weights as float32 [N, K]: unpacked (int4), less their zero points, times their scales.
Tensor dequantized_weights(const OpArgs& a) {
  const Tensor& w = a.tensor("weight");
  const int64_t bits = a.integer("bits");
  const int64_t n = w.int_size(0), k = w.int_size(1) * (bits == 8 ? 1 : 2);
  Tensor q = w.to(DType::Float32);
  if (bits == 4) {
    // Runs of 128 values: 16 little-endian words of 4 bytes, nibble p of word i (byte p / 2,
    // low half first) being value 16p + i.
    const Tensor bytes = q.view({n, k / 128, 16, 4, 1});
    const Tensor high = floor(bytes / 16.0);
    const Tensor nibbles = cat({bytes - high * 16.0, high}, 4);  // [n, runs, i, byte, half]
    q = nibbles.permute({0, 1, 3, 4, 2}).reshape({n, k}) - 8.0;
  }
  const int64_t groups = k / a.integer("group_size");
  Tensor grouped = q.view({n, groups, k / groups});
  const Tensor zeros = a.optional_tensor("zero_points");
  if (zeros.defined()) grouped = grouped - zeros.reshape({n, groups, 1});
  return (grouped * a.tensor("scales").reshape({n, groups, 1})).reshape({n, k});
}

std::vector<Tensor> weight_only_linear_decomposition(const OpArgs& a) {
  return {call1(XPORT_OP("aten::linear"), {a["input"], dequantized_weights(a), a["bias"]})};
}

std::vector<TensorMeta> bf16_linear_meta(const OpArgs& a) {
  const Tensor& x = a.tensor("input");
  const Tensor& w = a.tensor("weight");
  XPORT_CHECK(x.dim() >= 1 && x.dtype() == DType::Float32 && w.dim() == 2 &&
                  w.dtype() == DType::BFloat16 && static_cast<bool>(x.sizes().back() == w.size(1)),
              InvalidInput, a.name(), ": multiplies a float32 input [..., K] by bfloat16 weights "
              "[N, K], got ", Value(x).str(), " and ", Value(w).str());
  const Tensor bias = a.optional_tensor("bias");
  XPORT_CHECK(!bias.defined() || (bias.dtype() == DType::Float32 && bias.dim() == 1 &&
                                  static_cast<bool>(bias.size(0) == w.size(0))),
              InvalidInput, a.name(), ": the bias must be float32 [", w.size(0).str(), "], got ",
              Value(bias).str());
  std::vector<SymInt> sizes(x.sizes().begin(), x.sizes().end() - 1);
  sizes.push_back(w.size(0));
  return {contiguous_meta(sizes, DType::Float32)};
}

std::vector<Tensor> bf16_linear_decomposition(const OpArgs& a) {
  if (!a.boolean("bf16_compute")) {
    return {call1(XPORT_OP("aten::linear"),
                  {a["input"], a.tensor("weight").to(DType::Float32), a["bias"]})};
  }
  // torch.autocast's form: the input and bias rounded to bfloat16, the result widened back.
  const Tensor bias = a.optional_tensor("bias");
  const Value bias16 = bias.defined() ? Value(bias.to(DType::BFloat16)) : Value();
  return {call1(XPORT_OP("aten::linear"),
                {a.tensor("input").to(DType::BFloat16), a["weight"], bias16})
              .to(DType::Float32)};
}

}  // namespace

void xport_weight_only_linear_out(const Tensor& input, const Tensor& weight, int64_t bits,
                                  const Tensor& scales, const std::optional<Tensor>& zero_points,
                                  int64_t group_size, const std::optional<Tensor>& bias,
                                  const Tensor& out) {
  const int64_t k = input.int_sizes().back();
  const Tensor x = input.contiguous().view({input.int_numel() / std::max<int64_t>(k, 1), k});
  const Tensor y = out.view({x.int_size(0), out.int_sizes().back()});
  kernels::cpu::weight_only_linear_out(x, weight.contiguous(), bits, scales.contiguous(),
                                       zero_points ? zero_points->contiguous() : Tensor(),
                                       group_size, bias ? bias->contiguous() : Tensor(), y);
}

void xport_bf16_linear_out(const Tensor& input, const Tensor& weight,
                           const std::optional<Tensor>& bias, bool bf16_compute,
                           const Tensor& out) {
  const int64_t k = input.int_sizes().back();
  const Tensor x = input.contiguous().view({input.int_numel() / std::max<int64_t>(k, 1), k});
  const Tensor y = out.view({x.int_size(0), out.int_sizes().back()});
  kernels::cpu::weight_only_linear_out(x, weight.contiguous(), 16, Tensor(), Tensor(), k,
                                       bias ? bias->contiguous() : Tensor(), y, bf16_compute);
}

void register_weight_only_ops() {
  register_op({
      .schema = "xport::weight_only_linear(Tensor input, Tensor weight, int bits, "
                "Tensor scales, Tensor? zero_points, int group_size, Tensor? bias=None) -> "
                "Tensor",
      .meta = weight_only_linear_meta,
      .kernel = XPORT_OP_KERNEL(xport_weight_only_linear_out),
      .decomp = weight_only_linear_decomposition,
  });
  // bfloat16 weights (quant::to_bf16's programs): half float32's bytes. float32 compute, or
  // with bf16_compute torch.autocast's: the input and the result rounded to bfloat16.
  register_op({
      .schema = "xport::bf16_linear(Tensor input, Tensor weight, Tensor? bias=None, "
                "bool bf16_compute=False) -> Tensor",
      .meta = bf16_linear_meta,
      .kernel = XPORT_OP_KERNEL(xport_bf16_linear_out),
      .decomp = bf16_linear_decomposition,
  });
}

}  // namespace xport::ops
