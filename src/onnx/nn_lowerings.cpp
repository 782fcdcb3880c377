// Matrix products, normalization, resizing, distances and dropout.
#include <cmath>

#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

// The transposed operand of a Linear (`x @ weight.t()`): Gemm reads the weight as it is.
bool transposed_matrix(NodeLowering& n, const char* name) {
  const auto* ref = std::get_if<ir::ValueRef>(&n.node().arg(name).value);
  if (ref == nullptr || ref->node->kind() != ir::NodeKind::Call) return false;
  const ir::Node& producer = *ref->node;
  if (producer.op() != &find_op("aten::permute")) return false;
  const auto& dims = std::get<std::vector<ir::Argument>>(producer.arg("dims").value);
  return dims.size() == 2 && dims[0] == ir::Argument(1) && dims[1] == ir::Argument(0);
}

// ONNX Runtime has no bfloat16 Gemm or MatMul on CPU: a bfloat16 product is computed in float32
// (products of bfloat16 values are exact there, sums in float32 as PyTorch's CPU kernels do)
// and rounded back.
DType product_dtype(const NodeLowering& n) {
  return n.out_dtype() == DType::BFloat16 ? DType::Float32 : n.out_dtype();
}

void addmm(NodeLowering& n) {
  const DType t = product_dtype(n);
  std::string b = n.tensor_as("mat2", t);
  int64_t trans_b = 0;
  if (transposed_matrix(n, "mat2")) {
    const auto& producer = *std::get<ir::ValueRef>(n.node().arg("mat2").value).node;
    const auto& source = std::get<ir::ValueRef>(producer.arg("self").value);
    b = n.g.cast(n.g.value(source), producer.outputs()[0].dtype, t);
    trans_b = 1;
  }
  const std::string y = n.g.add(
      "Gemm", {n.tensor_as("mat1", t), b, n.tensor_as("self", t)},
      {attr("alpha", n.real("alpha")), attr("beta", n.real("beta")), attr("transB", trans_b)});
  n.set(n.g.cast(y, t, n.out_dtype()));
}

void matmul(NodeLowering& n) {
  const DType t = product_dtype(n);
  const std::string y = n.g.add("MatMul", {n.tensor_as("self", t), n.tensor_as("mat2", t)});
  n.set(n.g.cast(y, t, n.out_dtype()));
}

// aten::_int_mm: uint8 or int8 by int8, int32 sums, as ONNX's MatMulInteger (no zero points).
void int_mm(NodeLowering& n) { n.emit("MatMulInteger", {n.tensor("self"), n.tensor("mat2")}); }

// `value` (1 or 0) broadcast to `sizes`: a missing weight or bias.
std::string filled(NodeLowering& n, DType t, double value, const std::vector<sym::ExprPtr>& sizes) {
  return n.g.add("Expand", {n.g.scalar(t, value), n.g.shape(sizes)});
}

// An optional per-channel tensor, or `value` for every channel.
std::string or_filled(NodeLowering& n, const char* name, DType t, double value,
                      const std::vector<sym::ExprPtr>& sizes) {
  return n.is_none(name) ? filled(n, t, value, sizes) : n.tensor_as(name, t);
}

void layer_norm(NodeLowering& n) {
  const DType t = n.out_dtype();
  const std::vector<sym::ExprPtr> normalized = n.sizes("normalized_shape");
  const auto axis = -static_cast<int64_t>(normalized.size());
  std::vector<std::string> inputs{n.tensor_as("input", t),
                                  or_filled(n, "weight", t, 1, normalized)};
  if (!n.is_none("bias")) inputs.push_back(n.tensor_as("bias", t));
  const std::string y = n.out_name(0), mean = n.g.model().fresh(n.node().name() + "_mean"),
                    rstd = n.g.model().fresh(n.node().name() + "_rstd");
  n.g.add_to("LayerNormalization", std::move(inputs), {y, mean, rstd},
             {attr("axis", axis), attr("epsilon", n.real("eps"))});
  n.set(0, y);
  n.set(1, n.g.cast(mean, DType::Float32, n.out_dtype(1)));
  n.set(2, n.g.cast(rstd, DType::Float32, n.out_dtype(2)));
}

// The gradient of a normalization's input over the normalized `axes` (kept as size 1 in the
// means): rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), with gw the output's gradient times
// the weight.
std::string normalized_input_grad(GraphBuilder& g, const std::string& gw, const std::string& xhat,
                                  const std::string& rstd, const std::vector<int64_t>& axes) {
  const auto keep = attr("keepdims", int64_t{1});
  const std::string mean_gw = g.add("ReduceMean", {gw}, {attr("axes", axes), keep});
  const std::string mean_gwx =
      g.add("ReduceMean", {g.add("Mul", {gw, xhat})}, {attr("axes", axes), keep});
  const std::string centered = g.add("Sub", {g.add("Sub", {gw, mean_gw}),
                                             g.add("Mul", {xhat, mean_gwx})});
  return g.add("Mul", {rstd, centered});
}

// Sums over `axes` (none: the value itself), without keeping them.
std::string sum_over(GraphBuilder& g, const std::string& v, const std::vector<int64_t>& axes) {
  if (axes.empty()) return v;
  return g.add("ReduceSum", {v, g.ints(axes)}, {attr("keepdims", int64_t{0})});
}

// native_layer_norm_backward: the gradients output_mask asks for (the others are None).
void layer_norm_backward(NodeLowering& n) {
  const DType t = n.spec("grad_out").dtype;
  GraphBuilder& g = n.g;
  const size_t rank = n.spec("input").sizes.size();
  const size_t k = n.sizes("normalized_shape").size();
  std::vector<int64_t> inner, outer;
  for (size_t d = 0; d < rank; ++d) {
    (d + k < rank ? outer : inner).push_back(static_cast<int64_t>(d));
  }
  const std::string grad = n.tensor_as("grad_out", t), rstd = n.tensor_as("rstd", t);
  const std::string xhat = g.add("Mul", {g.add("Sub", {n.tensor_as("input", t),
                                                       n.tensor_as("mean", t)}), rstd});
  const std::vector<bool> mask = n.bools("output_mask");
  if (mask.at(0)) {
    const std::string gw =
        n.is_none("weight") ? grad : g.add("Mul", {grad, n.tensor_as("weight", t)});
    n.set(0, normalized_input_grad(g, gw, xhat, rstd, inner));
  }
  if (mask.at(1)) n.set(1, sum_over(g, g.add("Mul", {grad, xhat}), outer));
  if (mask.at(2)) n.set(2, sum_over(g, grad, outer));
}

// native_group_norm_backward, on [N, G, C/G, HxW] views of the input and its gradient.
void group_norm_backward(NodeLowering& n) {
  const DType t = n.spec("grad_out").dtype;
  GraphBuilder& g = n.g;
  const sym::ExprPtr batch = n.size("N"), channels = n.size("C"), hxw = n.size("HxW");
  const sym::ExprPtr groups = sym::integer(n.integer("group"));
  const sym::ExprPtr per_group = sym::floor_div(channels, groups);
  const std::string grouped = g.shape({batch, groups, per_group, hxw});
  const std::string stats = g.shape({batch, groups, sym::integer(1), sym::integer(1)});
  const std::string grad = g.add("Reshape", {n.tensor_as("grad_out", t), grouped});
  const std::string x = g.add("Reshape", {n.tensor_as("input", t), grouped});
  const std::string rstd = g.add("Reshape", {n.tensor_as("rstd", t), stats});
  const std::string xhat =
      g.add("Mul", {g.add("Sub", {x, g.add("Reshape", {n.tensor_as("mean", t), stats})}), rstd});
  const std::string per_channel_shape =
      g.shape({sym::integer(1), groups, per_group, sym::integer(1)});
  const std::vector<bool> mask = n.bools("output_mask");
  if (mask.at(0)) {
    const std::string gw =
        n.is_none("weight")
            ? grad
            : g.add("Mul", {grad, g.add("Reshape", {n.tensor_as("weight", t), per_channel_shape})});
    const std::string dx = normalized_input_grad(g, gw, xhat, rstd, {2, 3});
    n.set(0, g.add("Reshape", {dx, g.add("Shape", {n.tensor("input")})}));
  }
  const std::string flat = g.shape({channels});
  if (mask.at(1)) {
    n.set(1, g.add("Reshape", {sum_over(g, g.add("Mul", {grad, xhat}), {0, 3}), flat}));
  }
  if (mask.at(2)) n.set(2, g.add("Reshape", {sum_over(g, grad, {0, 3}), flat}));
}

// Per-channel statistics of a batch: x reduced over every dim but 1.
std::vector<int64_t> batch_axes(size_t rank) {
  std::vector<int64_t> axes{0};
  for (size_t d = 2; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  return axes;
}

// A per-channel [C] tensor shaped to broadcast against [N, C, ...].
std::string per_channel(NodeLowering& n, const std::string& v, size_t rank) {
  std::vector<int64_t> shape{-1};
  for (size_t d = 2; d < rank; ++d) shape.push_back(1);
  return n.g.add("Reshape", {v, n.g.ints(shape)});
}

void batch_norm_inference(NodeLowering& n) {
  const DType t = n.out_dtype();
  const ir::TensorSpec& input = n.spec("input");
  const std::vector<sym::ExprPtr> channels{input.sizes.at(1)};
  n.set(0, n.g.add("BatchNormalization",
                   {n.tensor_as("input", t), or_filled(n, "weight", t, 1, channels),
                    or_filled(n, "bias", t, 0, channels), n.tensor_as("running_mean", t),
                    n.tensor_as("running_var", t)},
                   {attr("epsilon", n.real("eps")), attr("momentum", 1 - n.real("momentum"))},
                   n.node().name()));
  // The saved statistics of inference are empty tensors.
  for (int i = 1; i < 3; ++i) n.set(i, n.g.constant(n.out_dtype(i), {}, {0}));
}

// Training-mode batch norm: normalised by the batch's own statistics; the running statistics
// (when given) updated with `momentum` and the unbiased variance, as PyTorch does.
void batch_norm_training(NodeLowering& n) {
  const OpDef& op = *n.node().op();
  const bool has_running = op.arg_position("running_mean") >= 0;
  if (op.arg_position("training") >= 0 && !n.flag("training")) {
    if (!has_running) n.refuse("inference without running statistics");
    batch_norm_inference(n);
    n.set(3, n.tensor("running_mean"));
    n.set(4, n.tensor("running_var"));
    return;
  }
  const DType t = n.out_dtype();
  GraphBuilder& g = n.g;
  const ir::TensorSpec& input = n.spec("input");
  const size_t rank = input.sizes.size();
  const std::vector<int64_t> axes = batch_axes(rank);
  const std::vector<sym::ExprPtr> channels{input.sizes.at(1)};
  const std::string x = n.tensor_as("input", t);
  const auto keep = attr("keepdims", int64_t{1});
  const std::string mean = g.add("ReduceMean", {x}, {attr("axes", axes), keep});
  const std::string d = g.add("Sub", {x, mean});
  const std::string var = g.add("ReduceMean", {g.add("Mul", {d, d})}, {attr("axes", axes), keep});
  const std::string rstd =
      g.add("Reciprocal", {g.add("Sqrt", {g.add("Add", {var, g.scalar(t, n.real("eps"))})})});
  std::string y = g.add("Mul", {d, rstd});
  y = g.add("Mul", {y, per_channel(n, or_filled(n, "weight", t, 1, channels), rank)});
  y = g.add("Add", {y, per_channel(n, or_filled(n, "bias", t, 0, channels), rank)});
  n.set(0, g.add("Identity", {y}, {}, n.node().name()));
  const std::string flat_mean = g.add("Reshape", {mean, g.ints({-1})});
  const std::string flat_var = g.add("Reshape", {var, g.ints({-1})});
  n.set(1, flat_mean);
  n.set(2, g.add("Reshape", {rstd, g.ints({-1})}));
  if (!has_running) return;
  sym::ExprPtr count = sym::integer(1);
  for (int64_t a : axes) count = sym::mul(count, input.sizes[static_cast<size_t>(a)]);
  const std::string c = g.cast(g.sym_int(count), DType::Int64, t);
  const std::string unbiased =
      g.add("Div", {g.add("Mul", {flat_var, c}), g.add("Sub", {c, g.scalar(t, 1)})});
  const double m = n.real("momentum");
  auto update = [&](const char* running, const std::string& batch) {
    const std::string old = g.add("Mul", {n.tensor_as(running, t), g.scalar(t, 1 - m)});
    return g.add("Add", {old, g.add("Mul", {batch, g.scalar(t, m)})});
  };
  n.set(3, update("running_mean", flat_mean));
  n.set(4, update("running_var", unbiased));
}

void group_norm(NodeLowering& n) {
  const DType t = n.out_dtype();
  GraphBuilder& g = n.g;
  const ir::TensorSpec& input = n.spec("input");
  const size_t rank = input.sizes.size();
  const sym::ExprPtr batch = n.size("N"), groups = sym::integer(n.integer("group"));
  const std::string x = n.tensor_as("input", t);
  const std::string grouped = g.add("Reshape", {x, g.shape({batch, groups, sym::integer(-1)})});
  const auto keep = attr("keepdims", int64_t{1});
  const auto last = attr("axes", std::vector<int64_t>{2});
  const std::string mean = g.add("ReduceMean", {grouped}, {last, keep});
  const std::string d = g.add("Sub", {grouped, mean});
  const std::string var = g.add("ReduceMean", {g.add("Mul", {d, d})}, {last, keep});
  const std::string rstd =
      g.add("Reciprocal", {g.add("Sqrt", {g.add("Add", {var, g.scalar(t, n.real("eps"))})})});
  std::string y = g.add("Reshape", {g.add("Mul", {d, rstd}), g.add("Shape", {x})});
  if (!n.is_none("weight")) y = g.add("Mul", {y, per_channel(n, n.tensor_as("weight", t), rank)});
  if (!n.is_none("bias")) y = g.add("Add", {y, per_channel(n, n.tensor_as("bias", t), rank)});
  n.set(0, g.add("Identity", {y}, {}, n.node().name()));
  const std::string stats_shape = g.shape({batch, groups});
  n.set(1, g.add("Reshape", {mean, stats_shape}));
  n.set(2, g.add("Reshape", {rstd, stats_shape}));
}

// grid_sampler_2d's modes, by PyTorch's numbering, as GridSample (opset 16) names them.
void grid_sample(NodeLowering& n) {
  static const char* const kModes[] = {"bilinear", "nearest", "bicubic"};
  static const char* const kPadding[] = {"zeros", "border", "reflection"};
  const int64_t mode = n.integer("interpolation_mode"), padding = n.integer("padding_mode");
  if (mode < 0 || mode > 2 || padding < 0 || padding > 2) n.refuse("an unknown mode");
  const DType t = n.out_dtype();
  n.emit("GridSample", {n.tensor_as("input", t), n.tensor_as("grid", t)},
         {attr("mode", std::string(kModes[mode])),
          attr("padding_mode", std::string(kPadding[padding])),
          attr("align_corners", static_cast<int64_t>(n.flag("align_corners")))});
}

std::vector<double> reals(NodeLowering& n, const char* name) {
  std::vector<double> out;
  if (n.is_none(name)) return out;
  for (const ir::Argument& a : std::get<std::vector<ir::Argument>>(n.node().arg(name).value)) {
    out.push_back(std::get<double>(a.value));
  }
  return out;
}

// Resize to the result's size; with scale factors, PyTorch maps coordinates by the factors
// (not by the sizes' ratio), and so does ONNX when given scales.
LowerFn resize(const char* mode) {
  return [mode](NodeLowering& n) {
    const std::string m(mode);
    std::vector<::onnx::AttributeProto> attrs{attr("mode", m)};
    if (m == "nearest") {
      attrs.push_back(attr("coordinate_transformation_mode", std::string("asymmetric")));
      attrs.push_back(attr("nearest_mode", std::string("floor")));
    } else {
      attrs.push_back(attr("coordinate_transformation_mode",
                           std::string(n.flag("align_corners") ? "align_corners"
                                                               : "pytorch_half_pixel")));
    }
    const std::vector<double> factors = reals(n, "scale_factors");
    if (!factors.empty()) {
      std::vector<double> scales{1, 1};
      scales.insert(scales.end(), factors.begin(), factors.end());
      const std::string s =
          n.g.constant(DType::Float32, scales, {static_cast<int64_t>(scales.size())});
      return n.emit("Resize", {n.tensor("input"), "", s}, std::move(attrs));
    }
    n.emit("Resize", {n.tensor("input"), "", "", n.g.shape(n.out_spec().sizes)}, std::move(attrs));
  };
}

// The p-norm distances between the rows of a [..., P, M] and of b [..., R, M]: [..., P, R].
std::string distances(NodeLowering& n, const std::string& a, const std::string& b, double p,
                      DType t) {
  GraphBuilder& g = n.g;
  const std::string diff = g.add("Abs", {g.add("Sub", {g.add("Unsqueeze", {a, g.ints({-2})}),
                                                       g.add("Unsqueeze", {b, g.ints({-3})})})});
  const std::string last = g.ints({-1});
  const auto keep = attr("keepdims", int64_t{0});
  if (std::isinf(p)) {
    return g.add("ReduceMax", {diff}, {attr("axes", std::vector<int64_t>{-1}), keep});
  }
  if (p == 0) {
    const std::string nonzero = g.cast(g.add("Not", {g.add("Equal", {diff, g.scalar(t, 0)})}),
                                       DType::Bool, t);
    return g.add("ReduceSum", {nonzero, last}, {keep});
  }
  if (p == 1) return g.add("ReduceSum", {diff, last}, {keep});
  if (p == 2) {
    return g.add("Sqrt", {g.add("ReduceSum", {g.add("Mul", {diff, diff}), last}, {keep})});
  }
  const std::string sum = g.add("ReduceSum", {g.add("Pow", {diff, g.scalar(t, p)}), last}, {keep});
  return g.add("Pow", {sum, g.scalar(t, 1 / p)});
}

void cdist(NodeLowering& n) {
  const DType t = n.out_dtype();
  const double p = n.real("p");
  if (p < 0) n.refuse("a negative p");
  n.set(n.g.add("Identity", {distances(n, n.tensor_as("x1", t), n.tensor_as("x2", t), p, t)}, {},
                n.node().name()));
}

// pdist: the distances of rows i < j, in row-major order: the strict upper triangle of the
// distance matrix, picked by a mask (Trilu).
void pdist(NodeLowering& n) {
  const DType t = n.out_dtype();
  GraphBuilder& g = n.g;
  const double p = n.real("p");
  if (p < 0) n.refuse("a negative p");
  const std::string x = n.tensor_as("self", t);
  const std::string all = distances(n, x, x, p, t);
  const std::string ones = g.add("Expand", {g.scalar(DType::Int64, 1), g.add("Shape", {all})});
  const std::string upper = g.cast(g.add("Trilu", {ones, g.constant(DType::Int64, {1}, {})},
                                         {attr("upper", int64_t{1})}),
                                   DType::Int64, DType::Bool);
  const std::string flat = g.add("Reshape", {all, g.ints({-1})});
  n.emit("Compress", {flat, g.add("Reshape", {upper, g.ints({-1})})}, {attr("axis", int64_t{0})});
}

// native_dropout: in training (train=None means training, as in PyTorch) ONNX's Dropout, which
// zeroes the same share of elements at random and scales the rest by 1 / (1 - p), as PyTorch
// does (other elements than PyTorch's: random values are not part of what a program computes).
void dropout(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const double p = n.real("p");
  if ((n.is_none("train") || n.flag("train")) && p != 0) {
    const DType t = n.out_dtype();
    if (!is_floating(t)) n.refuse("dropout of dtype " + std::string(dtype_name(t)));
    return n.emit("Dropout",
                  {n.tensor("input"), g.scalar(DType::Float32, p), g.scalar(DType::Bool, 1)});
  }
  // Dropping nothing: the input, all kept.
  n.set(0, g.add("Identity", {n.tensor("input")}, {}, n.node().name()));
  n.set(1, g.add("Expand", {g.scalar(DType::Bool, 1), g.shape(n.out_spec(1).sizes)}));
}

}  // namespace

LoweringList nn_lowerings() {
  return {
      {"aten::addmm", addmm},
      {"aten::mm", matmul},
      {"aten::_int_mm", int_mm},
      {"aten::bmm", matmul},
      {"aten::native_layer_norm", layer_norm},
      {"aten::_native_batch_norm_legit_no_training", batch_norm_inference},
      {"aten::_native_batch_norm_legit_functional", batch_norm_training},
      {"aten::_native_batch_norm_legit.no_stats", batch_norm_training},
      {"aten::native_group_norm", group_norm},
      {"aten::native_layer_norm_backward", layer_norm_backward},
      {"aten::native_group_norm_backward", group_norm_backward},
      {"aten::grid_sampler_2d", grid_sample},
      {"aten::upsample_nearest2d.vec", resize("nearest")},
      {"aten::upsample_bilinear2d.vec", resize("linear")},
      {"aten::native_dropout", dropout},
      {"aten::_cdist_forward", cdist},
      {"aten::_pdist_forward", pdist},
  };
}

}  // namespace xport::onnx
