// PyTorch's decomposed quantization ops in ONNX's QDQ form: QuantizeLinear / DequantizeLinear
// (per tensor, or per channel with `axis`), which ONNX Runtime and OpenVINO fuse with the ops
// between them into integer kernels. choose_qparams (dynamic quantization) is written out with
// ReduceMin / ReduceMax as PyTorch computes it.
//
// Where the values differ from PyTorch's: QuantizeLinear divides by the scale where PyTorch
// multiplies by its float32 reciprocal, so a value within a rounding error of a step's boundary
// may land one step apart. Dequantizing is exact ((q - zero_point) * scale, both in float32).
// ONNX opset 17 quantizes to uint8 and int8 only (int16 and int32 need opset 21).
#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

DType quantized_dtype(const NodeLowering& n) {
  const DType d = n.dtype("dtype").value();
  if (d != DType::UInt8 && d != DType::Int8) {
    n.refuse(std::string("ONNX opset 17 quantizes to uint8 and int8 only, this is ") +
             dtype_name(d) + " (int16 and int32 need opset 21)");
  }
  return d;
}

// A per-tensor parameter as a 0-D value of `dtype`: a number of the op's default overload, or
// the one-element tensor of its .tensor overloads (choose_qparams' [1] results).
std::string per_tensor(NodeLowering& n, const char* name, DType dtype) {
  if (!n.takes_tensor(name)) {
    return dtype == DType::Float32 ? n.g.scalar(dtype, n.real(name))
                                   : n.g.integer(dtype, n.integer(name));
  }
  return n.g.add("Reshape", {n.tensor_as(name, dtype), n.g.ints({})});
}

// The [quant_min, quant_max] clip, where it is narrower than the dtype's range (XNNPACK's
// symmetric weights take [-127, 127]); QuantizeLinear saturates to the dtype's range itself.
std::string clip_to_range(NodeLowering& n, const std::string& q, DType dtype) {
  const int64_t lo = dtype == DType::UInt8 ? 0 : -128, hi = dtype == DType::UInt8 ? 255 : 127;
  if (!n.takes_tensor("quant_min") && n.integer("quant_min") <= lo &&
      n.integer("quant_max") >= hi) {
    return q;
  }
  return n.g.add("Clip", {q, per_tensor(n, "quant_min", dtype), per_tensor(n, "quant_max", dtype)});
}

// quantize_per_tensor (all overloads): QuantizeLinear, then the range's clip.
void quantize_per_tensor(NodeLowering& n) {
  const DType q = quantized_dtype(n);
  const std::string y = n.g.add(
      "QuantizeLinear", {n.tensor_as("input", DType::Float32),
                         per_tensor(n, "scale", DType::Float32), per_tensor(n, "zero_point", q)});
  n.set(clip_to_range(n, y, q));
}

// The float result in the op's out_dtype (float32 unless asked otherwise).
void set_dequantized(NodeLowering& n, const std::string& y) {
  n.set(n.g.cast(y, DType::Float32, n.out_dtype()));
}

// dequantize_per_tensor (all overloads): DequantizeLinear.
void dequantize_per_tensor(NodeLowering& n) {
  const DType q = quantized_dtype(n);
  set_dequantized(n, n.g.add("DequantizeLinear",
                             {n.tensor("input"), per_tensor(n, "scale", DType::Float32),
                              per_tensor(n, "zero_point", q)}));
}

// Per-channel scales and zero points: 1-D, along `axis`.
std::vector<std::string> per_channel(NodeLowering& n, DType q) {
  std::vector<std::string> params = {n.tensor_as("scales", DType::Float32)};
  if (!n.is_none("zero_points")) params.push_back(n.tensor_as("zero_points", q));
  return params;
}

void quantize_per_channel(NodeLowering& n) {
  const DType q = quantized_dtype(n);
  std::vector<std::string> inputs = {n.tensor_as("input", DType::Float32)};
  for (std::string& p : per_channel(n, q)) inputs.push_back(std::move(p));
  const std::string y = n.g.add("QuantizeLinear", std::move(inputs),
                                {attr("axis", n.dim("axis", "input"))});
  n.set(clip_to_range(n, y, q));
}

void dequantize_per_channel(NodeLowering& n) {
  const DType q = quantized_dtype(n);
  std::vector<std::string> inputs = {n.tensor("input")};
  for (std::string& p : per_channel(n, q)) inputs.push_back(std::move(p));
  set_dequantized(n, n.g.add("DequantizeLinear", std::move(inputs),
                             {attr("axis", n.dim("axis", "input"))}));
}

// The group size of a per-channel-group op as PyTorch reads it (a group wider than the row,
// with one scale per row, is the row).
int64_t group_of(NodeLowering& n) {
  const std::optional<int64_t> row = sym::as_int(n.spec("input").sizes.back());
  if (!row) n.refuse("the input's last dim must be static");
  const std::vector<sym::ExprPtr>& scales = n.spec("scales").sizes;
  const bool one_per_row = !scales.empty() && sym::as_int(scales.back()) == 1;
  const int64_t group = n.integer("group_size");
  return group > *row && one_per_row ? *row : group;
}

// A group-wise parameter as a [groups, 1] column of `dtype`, beside the input's [groups, group].
std::string group_column(NodeLowering& n, const char* name, DType dtype) {
  return n.g.add("Reshape", {n.tensor_as(name, dtype), n.g.ints({-1, 1})});
}

// quantize_per_channel_group as PyTorch computes it (x * (1 / scales) + zero_points, rounded
// half to even, clipped): the same float32 operations in the same order, so exact.
void quantize_per_channel_group(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const std::string x = g.add("Reshape", {n.tensor_as("input", DType::Float32),
                                          g.ints({-1, group_of(n)})});
  const std::string inverse = g.add("Reciprocal", {group_column(n, "scales", DType::Float32)});
  const std::string shifted = g.add("Add", {g.add("Mul", {x, inverse}),
                                            group_column(n, "zero_points", DType::Float32)});
  const std::string clipped =
      g.add("Clip", {g.add("Round", {shifted}), g.scalar(DType::Float32, n.integer("quant_min")),
                     g.scalar(DType::Float32, n.integer("quant_max"))});
  const DType q = n.dtype("dtype").value();
  n.set(g.add("Reshape",
              {g.cast(clipped, DType::Float32, q), g.add("Shape", {n.tensor("input")})}));
}

// dequantize_per_channel_group: (q - zero_points) * scales per group, exact in float32. ONNX
// opset 17's DequantizeLinear has no blocks (opset 21's block_size), so it is arithmetic.
void dequantize_per_channel_group(NodeLowering& n) {
  GraphBuilder& g = n.g;
  std::string q = g.add("Reshape", {n.tensor_as("input", DType::Float32),
                                    g.ints({-1, group_of(n)})});
  if (!n.is_none("zero_points")) {
    q = g.add("Sub", {q, group_column(n, "zero_points", DType::Float32)});
  }
  const std::string y = g.add("Mul", {q, group_column(n, "scales", DType::Float32)});
  set_dequantized(n, g.add("Reshape", {y, g.add("Shape", {n.tensor("input")})}));
}

// choose_qparams.tensor and its symmetric form, as PyTorch's determine_qparams computes them in
// float32: the range [min(x, 0), max(x, 0)], its scale (at least eps), and the zero point.
void choose_qparams(NodeLowering& n, bool symmetric) {
  GraphBuilder& g = n.g;
  const std::string x = n.tensor_as("input", DType::Float32);
  const auto f32 = [&g](double v) { return g.scalar(DType::Float32, v); };
  const std::vector<::onnx::AttributeProto> all = {attr("keepdims", int64_t{0})};
  const std::string min_neg = g.add("Min", {g.add("ReduceMin", {x}, all), f32(0)});
  std::string max_pos = g.add("Max", {g.add("ReduceMax", {x}, all), f32(0)});
  const int64_t qmin = n.integer("quant_min"), qmax = n.integer("quant_max");
  const auto range = static_cast<double>(qmax - qmin);
  std::string scale, zero_point;
  if (symmetric) {
    max_pos = g.add("Max", {g.add("Neg", {min_neg}), max_pos});
    scale = g.add("Max", {g.add("Div", {max_pos, f32(range / 2)}), f32(n.real("eps"))});
    zero_point = g.integer(DType::Int64, n.dtype("dtype") == DType::UInt8 ? 128 : 0);
  } else {
    scale = g.add("Max", {g.add("Div", {g.add("Sub", {max_pos, min_neg}), f32(range)}),
                          f32(n.real("eps"))});
    const std::string steps =
        g.cast(g.add("Round", {g.add("Div", {min_neg, scale})}), DType::Float32, DType::Int32);
    zero_point = g.add("Clip", {g.add("Sub", {g.integer(DType::Int32, qmin), steps}),
                                g.integer(DType::Int32, qmin), g.integer(DType::Int32, qmax)});
    zero_point = g.cast(zero_point, DType::Int32, DType::Int64);
  }
  n.set(0, g.add("Reshape", {g.cast(scale, DType::Float32, DType::Float64), g.ints({1})}));
  n.set(1, g.add("Reshape", {zero_point, g.ints({1})}));
}

}  // namespace

LoweringList quantize_lowerings() {
  return {
      {"quantized_decomposed::quantize_per_tensor", quantize_per_tensor},
      {"quantized_decomposed::quantize_per_tensor.tensor", quantize_per_tensor},
      {"quantized_decomposed::quantize_per_tensor.tensor2", quantize_per_tensor},
      {"quantized_decomposed::dequantize_per_tensor", dequantize_per_tensor},
      {"quantized_decomposed::dequantize_per_tensor.tensor", dequantize_per_tensor},
      {"quantized_decomposed::dequantize_per_tensor.tensor2", dequantize_per_tensor},
      {"quantized_decomposed::quantize_per_channel", quantize_per_channel},
      {"quantized_decomposed::dequantize_per_channel", dequantize_per_channel},
      {"quantized_decomposed::quantize_per_channel_group", quantize_per_channel_group},
      {"quantized_decomposed::dequantize_per_channel_group", dequantize_per_channel_group},
      {"quantized_decomposed::choose_qparams.tensor",
       [](NodeLowering& n) { choose_qparams(n, false); }},
      {"quantized_decomposed::choose_qparams_symmetric.tensor",
       [](NodeLowering& n) { choose_qparams(n, true); }},
  };
}

}  // namespace xport::onnx
