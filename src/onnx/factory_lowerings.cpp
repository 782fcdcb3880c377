// Tensors made from sizes and numbers.
#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

// `value` broadcast to the result's sizes.
void fill_result(NodeLowering& n, const std::string& value) {
  n.emit("Expand", {value, n.g.shape(n.out_spec().sizes)});
}

// arange as xport's kernel computes it: start + i * step for i below the result's length (known
// from the node, so ONNX's Range never recounts it in a rounded dtype), in int64 when start and
// step are integers, else in double, then converted to the result's dtype.
void arange(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const std::string count = g.sym_scalar(n.out_spec().sizes.at(0));
  const std::string i = g.add("Range", {g.constant(DType::Int64, {0}, {}), count,
                                        g.constant(DType::Int64, {1}, {})});
  const DType compute = n.scalar_is_float("start") || n.scalar_is_float("step") ? DType::Float64
                                                                                : DType::Int64;
  const std::string steps =
      g.add("Mul", {g.cast(i, DType::Int64, compute), n.scalar("step", compute)});
  const std::string values = g.add("Add", {steps, n.scalar("start", compute)});
  n.emit("Cast", {values}, {attr("to", static_cast<int64_t>(onnx_type(n.out_dtype())))});
}

// rand / randn: ONNX's random ops draw from the same distribution (uniform in [0, 1), standard
// normal), not the same values: a random op's values are not part of what a program computes.
LowerFn random_like(const char* op_type) {
  return [op_type](NodeLowering& n) {
    const DType t = n.out_dtype();
    if (!is_floating(t)) n.refuse("random values of dtype " + std::string(dtype_name(t)));
    const std::string like = n.g.add("Expand", {n.g.scalar(t, 0), n.g.shape(n.out_spec().sizes)});
    n.emit(op_type, {like}, {attr("dtype", static_cast<int64_t>(onnx_type(t)))});
  };
}

// randperm(n): the order that sorts n uniform draws, a permutation with every order equally
// likely (ONNX has no permutation op).
void randperm(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const std::string count = g.sym_int(n.size("n"));
  const std::string draws = g.add(
      "RandomUniformLike", {g.add("Expand", {g.scalar(DType::Float32, 0), count})});
  const std::string values = g.model().fresh("draws_sorted");
  const std::string order = g.model().fresh("permutation");
  g.add_to("TopK", {draws, count}, {values, order}, {attr("axis", int64_t{0})});
  n.set(g.cast(order, DType::Int64, n.out_dtype()));
}

}  // namespace

LoweringList factory_lowerings() {
  return {
      {"aten::scalar_tensor",
       [](NodeLowering& n) { n.set(n.g.add("Identity", {n.scalar("s", n.out_dtype())}, {},
                                            n.node().name())); }},
      {"aten::full",
       [](NodeLowering& n) { fill_result(n, n.scalar("fill_value", n.out_dtype())); }},
      {"aten::fill.Scalar",
       [](NodeLowering& n) { fill_result(n, n.scalar("value", n.out_dtype())); }},
      // Uninitialised memory: zeros are one of its values.
      {"aten::empty.memory_format",
       [](NodeLowering& n) { fill_result(n, n.g.scalar(n.out_dtype(), 0)); }},
      {"aten::empty_strided",
       [](NodeLowering& n) { fill_result(n, n.g.scalar(n.out_dtype(), 0)); }},
      {"aten::arange.start_step", arange},
      {"aten::rand", random_like("RandomUniformLike")},
      {"aten::randn", random_like("RandomNormalLike")},
      {"aten::randperm", randperm},
  };
}

}  // namespace xport::onnx
