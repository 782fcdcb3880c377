// PyTorch's decomposed quantization ops (`quantized_decomposed::*`, defined by
// torch/ao/quantization/fx/_decomposed.py): what PT2E's convert_pt2e writes around the float ops
// of a quantized program (static per-tensor and per-channel, and dynamic quantization's
// choose_qparams), and what ExecuTorch and Inductor pattern-match into integer kernels. They are
// core ops here, as there: a backend implements them (ONNX's QuantizeLinear / DequantizeLinear).
// Schemas are PyTorch's, argument for argument; results are PyTorch's bit for bit.
#include <limits>
#include <string>
#include <utility>

#include "kernels/cpu/quantize.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

// The range of values each quantized dtype holds (PyTorch's _DTYPE_TO_QVALUE_BOUNDS; uint16 and
// the float8 types have no xport dtype).
std::pair<int64_t, int64_t> quantized_bounds(const OpArgs& args, DType dtype) {
  switch (dtype) {
    case DType::UInt8: return {0, 255};
    case DType::Int8: return {-128, 127};
    case DType::Int16: return {-32768, 32767};
    case DType::Int32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default:
      XPORT_FAIL(InvalidInput, args.name(), ": quantizes to uint8, int8, int16 or int32, got ",
                  dtype_name(dtype));
  }
}

// quant_min and quant_max lie within the dtype's range (PyTorch's _quant_min_max_bounds_check).
void check_bounds(const OpArgs& args) {
  const auto [lo, hi] = quantized_bounds(args, args.dtype("dtype"));
  const int64_t qmin = args.integer("quant_min");
  const int64_t qmax = args.integer("quant_max");
  XPORT_CHECK(qmin >= lo && qmax <= hi, InvalidInput, args.name(), ": quant_min ", qmin,
              " and quant_max ", qmax, " must lie within ", dtype_name(args.dtype("dtype")),
              "'s range [", lo, ", ", hi, "]");
}

// Quantization reads float32; float16 and bfloat16 are widened first, as PyTorch does.
void check_float_input(const OpArgs& args) {
  const DType d = args.tensor("input").dtype();
  XPORT_CHECK(d == DType::Float32 || d == DType::Float16 || d == DType::BFloat16, InvalidInput,
              args.name(), ": expects a float32 (or float16, bfloat16) input, got ",
              dtype_name(d), "; convert it with .to(float32) first");
}

// A scale or zero point given as a tensor holds one value.
void check_one_element(const OpArgs& args, ArgName name) {
  const Tensor& t = args.tensor(name);
  XPORT_CHECK(static_cast<bool>(t.numel() == 1), InvalidInput, args.name(), ": ", name.view(),
              " must hold one element, got ", Value(t).str());
}

std::vector<TensorMeta> quantize_meta(const OpArgs& args) {
  check_float_input(args);
  if (args["quant_min"].is_int()) check_bounds(args);  // .tensor2 reads them at run time
  quantized_bounds(args, args.dtype("dtype"));
  return {contiguous_meta(args.tensor("input").sizes(), args.dtype("dtype"))};
}

std::vector<TensorMeta> quantize_tensor_meta(const OpArgs& args) {
  check_one_element(args, "scale");
  check_one_element(args, "zero_point");
  return quantize_meta(args);
}

DType dequantized_dtype(const OpArgs& args) {
  const DType out = args.optional_dtype("out_dtype").value_or(DType::Float32);
  XPORT_CHECK(is_floating(out), InvalidInput, args.name(), ": out_dtype must be a floating "
              "dtype, got ", dtype_name(out));
  return out;
}

std::vector<TensorMeta> dequantize_meta(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  XPORT_CHECK(input.dtype() == args.dtype("dtype"), InvalidInput, args.name(),
              ": expects an input of dtype ", dtype_name(args.dtype("dtype")), ", got ",
              dtype_name(input.dtype()));
  if (args["quant_min"].is_int()) check_bounds(args);
  return {contiguous_meta(input.sizes(), dequantized_dtype(args))};
}

std::vector<TensorMeta> dequantize_tensor_meta(const OpArgs& args) {
  check_one_element(args, "scale");
  check_one_element(args, "zero_point");
  return dequantize_meta(args);
}

// Per-channel parameters: float scales and integer zero points, one per element of input's
// `axis`.
int64_t check_channel_params(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const int64_t axis = wrap_dim(args, args.integer("axis"), input.dim());
  XPORT_CHECK(input.dim() > 0, InvalidInput, args.name(), ": needs an input with a channel axis");
  const Tensor& scales = args.tensor("scales");
  XPORT_CHECK(scales.dim() == 1 && static_cast<bool>(scales.size(0) == input.size(axis)) &&
                  (scales.dtype() == DType::Float32 || scales.dtype() == DType::Float64),
              InvalidInput, args.name(), ": scales must be float32 or float64 with one value per "
              "channel (", input.size(axis).str(), " along axis ", axis, "), got ",
              Value(scales).str());
  const Tensor zero_points = args.optional_tensor("zero_points");
  if (zero_points.defined()) {
    XPORT_CHECK(zero_points.dim() == 1 && static_cast<bool>(zero_points.size(0) == scales.size(0)),
                InvalidInput, args.name(), ": zero_points must hold one value per channel like "
                "scales, got ", Value(zero_points).str());
    XPORT_CHECK(is_integral(zero_points.dtype(), false), UnsupportedOp, args.name(),
                ": takes integer zero points, got ", dtype_name(zero_points.dtype()),
                " (float zero points are not supported)");
  }
  check_bounds(args);
  return axis;
}

std::vector<TensorMeta> quantize_per_channel_meta(const OpArgs& args) {
  check_float_input(args);
  check_channel_params(args);
  return {contiguous_meta(args.tensor("input").sizes(), args.dtype("dtype"))};
}

std::vector<TensorMeta> dequantize_per_channel_meta(const OpArgs& args) {
  check_channel_params(args);
  const Tensor& input = args.tensor("input");
  XPORT_CHECK(input.dtype() == args.dtype("dtype"), InvalidInput, args.name(),
              ": expects an input of dtype ", dtype_name(args.dtype("dtype")), ", got ",
              dtype_name(input.dtype()));
  return {contiguous_meta(input.sizes(), dequantized_dtype(args))};
}

// Groups of group_size values along a 2-d input's last dim, one scale (and zero point) each:
// returns the group size as PyTorch reads it (a group wider than the row, with one scale per
// row, is the row).
int64_t check_group_params(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  int64_t group = args.integer("group_size");
  XPORT_CHECK(input.dim() == 2, InvalidInput, args.name(), ": takes a 2-d input (a linear "
              "layer's weight), got ", Value(input).str());
  XPORT_CHECK(group > 1, InvalidInput, args.name(), ": group_size must be more than 1, got ",
              group);
  const Tensor& scales = args.tensor("scales");
  const int64_t row = input.int_size(1);
  if (group > row && scales.dim() > 0 && scales.int_size(scales.dim() - 1) == 1) group = row;
  XPORT_CHECK(row % group == 0, InvalidInput, args.name(), ": group_size ", group,
              " must divide the input's last dim, ", row);
  const int64_t groups = input.int_size(0) * (row / group);
  XPORT_CHECK(scales.int_numel() == groups && is_floating(scales.dtype()), InvalidInput,
              args.name(), ": scales must be floating with one value per group (", groups,
              " for ", Value(input).str(), " in groups of ", group, "), got ",
              Value(scales).str());
  const Tensor zero_points = args.optional_tensor("zero_points");
  if (zero_points.defined()) {
    XPORT_CHECK(zero_points.int_numel() == groups && is_integral(zero_points.dtype(), false),
                InvalidInput, args.name(), ": zero_points must be integers, one per group like "
                "scales, got ", Value(zero_points).str());
  }
  check_bounds(args);
  return group;
}

std::vector<TensorMeta> quantize_per_channel_group_meta(const OpArgs& args) {
  check_float_input(args);
  check_group_params(args);
  return {contiguous_meta(args.tensor("input").sizes(), args.dtype("dtype"))};
}

std::vector<TensorMeta> dequantize_per_channel_group_meta(const OpArgs& args) {
  check_group_params(args);
  const Tensor& input = args.tensor("input");
  XPORT_CHECK(input.dtype() == args.dtype("dtype"), InvalidInput, args.name(),
              ": expects an input of dtype ", dtype_name(args.dtype("dtype")), ", got ",
              dtype_name(input.dtype()));
  const DType out = args.dtype("output_dtype");
  XPORT_CHECK(is_floating(out), InvalidInput, args.name(), ": output_dtype must be a floating "
              "dtype, got ", dtype_name(out));
  return {contiguous_meta(input.sizes(), out)};
}

std::vector<TensorMeta> choose_qparams_meta(const OpArgs& args) {
  check_float_input(args);
  quantized_bounds(args, args.dtype("dtype"));
  const int64_t qmin = args.integer("quant_min");
  const int64_t qmax = args.integer("quant_max");
  XPORT_CHECK(qmin <= 0 && 0 <= qmax && qmin < qmax, InvalidInput, args.name(),
              ": the range [quant_min, quant_max] = [", qmin, ", ", qmax,
              "] must hold 0 and more than one value");
  return {contiguous_meta({SymInt(1)}, DType::Float64), contiguous_meta({SymInt(1)}, DType::Int64)};
}

}  // namespace

// The kernels, with the schema's parameters (named, so generated code calls them).
void quantize_per_tensor_out(const Tensor& input, double scale, int64_t zero_point,
                             int64_t quant_min, int64_t quant_max, DType /*dtype*/,
                             const Tensor& out) {
  kernels::cpu::quantize_per_tensor_out(input, scale, zero_point, quant_min, quant_max, out);
}

void quantize_per_tensor_tensor_out(const Tensor& input, const Tensor& scale,
                                    const Tensor& zero_point, int64_t quant_min,
                                    int64_t quant_max, DType /*dtype*/, const Tensor& out) {
  kernels::cpu::quantize_per_tensor_out(input, scale.item<double>(), zero_point.item<int64_t>(),
                                        quant_min, quant_max, out);
}

void quantize_per_tensor_tensor2_out(const Tensor& input, const Tensor& scale,
                                     const Tensor& zero_point, const Tensor& quant_min,
                                     const Tensor& quant_max, DType dtype, const Tensor& out) {
  const OpDef& op = XPORT_OP("quantized_decomposed::quantize_per_tensor");
  const Value qmin = quant_min.item<int64_t>(), qmax = quant_max.item<int64_t>();
  check_bounds(OpArgs(op, {input, 1.0, int64_t{0}, qmin, qmax, dtype}));
  kernels::cpu::quantize_per_tensor_out(input, scale.item<double>(), zero_point.item<int64_t>(),
                                        qmin.to_int(), qmax.to_int(), out);
}

void dequantize_per_tensor_out(const Tensor& input, double scale, int64_t zero_point,
                               int64_t /*quant_min*/, int64_t /*quant_max*/, DType /*dtype*/,
                               std::optional<DType> /*out_dtype*/, const Tensor& out) {
  kernels::cpu::dequantize_per_tensor_out(input, scale, zero_point, out);
}

void dequantize_per_tensor_tensor_out(const Tensor& input, const Tensor& scale,
                                      const Tensor& zero_point, int64_t /*quant_min*/,
                                      int64_t /*quant_max*/, DType /*dtype*/,
                                      std::optional<DType> /*out_dtype*/, const Tensor& out) {
  kernels::cpu::dequantize_per_tensor_out(input, scale.item<double>(),
                                          zero_point.item<int64_t>(), out);
}

void dequantize_per_tensor_tensor2_out(const Tensor& input, const Tensor& scale,
                                       const Tensor& zero_point, const Tensor& /*quant_min*/,
                                       const Tensor& /*quant_max*/, DType /*dtype*/,
                                       std::optional<DType> /*out_dtype*/, const Tensor& out) {
  kernels::cpu::dequantize_per_tensor_out(input, scale.item<double>(),
                                          zero_point.item<int64_t>(), out);
}

namespace {

int64_t channel_axis(const Tensor& input, int64_t axis) {
  return wrap_dim("quantized_decomposed::quantize_per_channel", axis, input.dim());
}

}  // namespace

void quantize_per_channel_out(const Tensor& input, const Tensor& scales,
                              const Tensor& zero_points, int64_t axis, int64_t quant_min,
                              int64_t quant_max, DType /*dtype*/, const Tensor& out) {
  kernels::cpu::quantize_per_channel_out(input, scales, zero_points, channel_axis(input, axis),
                                         quant_min, quant_max, out);
}

void dequantize_per_channel_out(const Tensor& input, const Tensor& scales,
                                const std::optional<Tensor>& zero_points, int64_t axis,
                                int64_t /*quant_min*/, int64_t /*quant_max*/, DType /*dtype*/,
                                std::optional<DType> /*out_dtype*/, const Tensor& out) {
  kernels::cpu::dequantize_per_channel_out(input, scales, zero_points.value_or(Tensor()),
                                           channel_axis(input, axis), out);
}

namespace {

// The group size as PyTorch reads it: a group wider than the row, with one scale per row, is
// the row (the meta function checked the rest).
int64_t effective_group(const Tensor& input, const Tensor& scales, int64_t group_size) {
  const int64_t row = input.int_size(1);
  const bool one_per_row = scales.dim() > 0 && scales.int_size(scales.dim() - 1) == 1;
  return group_size > row && one_per_row ? row : group_size;
}

}  // namespace

void quantize_per_channel_group_out(const Tensor& input, const Tensor& scales,
                                    const Tensor& zero_points, int64_t quant_min,
                                    int64_t quant_max, DType /*dtype*/, int64_t group_size,
                                    const Tensor& out) {
  kernels::cpu::quantize_per_channel_group_out(input, scales, zero_points,
                                               effective_group(input, scales, group_size),
                                               quant_min, quant_max, out);
}

void dequantize_per_channel_group_out(const Tensor& input, const Tensor& scales,
                                      const std::optional<Tensor>& zero_points,
                                      int64_t /*quant_min*/, int64_t /*quant_max*/,
                                      DType /*dtype*/, int64_t group_size,
                                      DType /*output_dtype*/, const Tensor& out) {
  kernels::cpu::dequantize_per_channel_group_out(input, scales, zero_points.value_or(Tensor()),
                                                 effective_group(input, scales, group_size),
                                                 out);
}

void choose_qparams_tensor_out(const Tensor& input, int64_t quant_min, int64_t quant_max,
                               double eps, DType dtype, const Tensor& scale,
                               const Tensor& zero_point) {
  kernels::cpu::choose_qparams_out(input, quant_min, quant_max, eps, /*symmetric=*/false,
                                   dtype == DType::UInt8, scale, zero_point);
}

void choose_qparams_symmetric_tensor_out(const Tensor& input, int64_t quant_min,
                                         int64_t quant_max, double eps, DType dtype,
                                         const Tensor& scale, const Tensor& zero_point) {
  kernels::cpu::choose_qparams_out(input, quant_min, quant_max, eps, /*symmetric=*/true,
                                   dtype == DType::UInt8, scale, zero_point);
}

void register_quantized_decomposed_ops() {
  register_op({
      .schema = "quantized_decomposed::quantize_per_tensor(Tensor input, float scale, "
                "int zero_point, int quant_min, int quant_max, ScalarType dtype) -> Tensor",
      .meta = quantize_meta,
      .kernel = XPORT_OP_KERNEL(quantize_per_tensor_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::quantize_per_tensor.tensor(Tensor input, Tensor scale, "
                "Tensor zero_point, int quant_min, int quant_max, ScalarType dtype) -> Tensor",
      .meta = quantize_tensor_meta,
      .kernel = XPORT_OP_KERNEL(quantize_per_tensor_tensor_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::quantize_per_tensor.tensor2(Tensor input, Tensor scale, "
                "Tensor zero_point, Tensor quant_min, Tensor quant_max, ScalarType dtype) -> "
                "Tensor",
      .meta = quantize_tensor_meta,
      .kernel = XPORT_OP_KERNEL(quantize_per_tensor_tensor2_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::dequantize_per_tensor(Tensor input, float scale, "
                "int zero_point, int quant_min, int quant_max, ScalarType dtype, *, "
                "ScalarType? out_dtype=None) -> Tensor",
      .meta = dequantize_meta,
      .kernel = XPORT_OP_KERNEL(dequantize_per_tensor_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::dequantize_per_tensor.tensor(Tensor input, Tensor scale, "
                "Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *, "
                "ScalarType? out_dtype=None) -> Tensor",
      .meta = dequantize_tensor_meta,
      .kernel = XPORT_OP_KERNEL(dequantize_per_tensor_tensor_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::dequantize_per_tensor.tensor2(Tensor input, "
                "Tensor scale, Tensor zero_point, Tensor quant_min, Tensor quant_max, "
                "ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor",
      .meta = dequantize_tensor_meta,
      .kernel = XPORT_OP_KERNEL(dequantize_per_tensor_tensor2_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::quantize_per_channel(Tensor input, Tensor scales, "
                "Tensor zero_points, int axis, int quant_min, int quant_max, "
                "ScalarType dtype) -> Tensor",
      .meta = quantize_per_channel_meta,
      .kernel = XPORT_OP_KERNEL(quantize_per_channel_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::dequantize_per_channel(Tensor input, Tensor scales, "
                "Tensor? zero_points, int axis, int quant_min, int quant_max, "
                "ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor",
      .meta = dequantize_per_channel_meta,
      .kernel = XPORT_OP_KERNEL(dequantize_per_channel_out),
      .core = true,
  });
  // Group-wise (int4 weights kept one value per int8, as PyTorch's 8da4w and weight-only int4
  // flows write them).
  register_op({
      .schema = "quantized_decomposed::quantize_per_channel_group(Tensor input, Tensor scales, "
                "Tensor zero_points, int quant_min, int quant_max, ScalarType dtype, "
                "int group_size) -> Tensor",
      .meta = quantize_per_channel_group_meta,
      .kernel = XPORT_OP_KERNEL(quantize_per_channel_group_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::dequantize_per_channel_group(Tensor input, "
                "Tensor scales, Tensor? zero_points, int quant_min, int quant_max, "
                "ScalarType dtype, int group_size, ScalarType output_dtype) -> Tensor",
      .meta = dequantize_per_channel_group_meta,
      .kernel = XPORT_OP_KERNEL(dequantize_per_channel_group_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::choose_qparams.tensor(Tensor input, int quant_min, "
                "int quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)",
      .meta = choose_qparams_meta,
      .kernel = XPORT_OP_KERNEL(choose_qparams_tensor_out),
      .core = true,
  });
  register_op({
      .schema = "quantized_decomposed::choose_qparams_symmetric.tensor(Tensor input, "
                "int quant_min, int quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)",
      .meta = choose_qparams_meta,
      .kernel = XPORT_OP_KERNEL(choose_qparams_symmetric_tensor_out),
      .core = true,
  });
}

}  // namespace xport::ops
