// Reductions, softmax and scans.
#include <algorithm>

#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

// The reduced dims, wrapped (all dims when `dim` is None or empty).
std::vector<int64_t> reduced_dims(NodeLowering& n, const char* name) {
  const auto rank = static_cast<int64_t>(n.spec("self").sizes.size());
  std::vector<int64_t> dims;
  if (rank == 0) return dims;  // a 0-D tensor: dim 0 or -1 reduces nothing
  if (n.node().op()->arg_position(name) >= 0) dims = n.integers(name);
  if (dims.empty()) {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  }
  for (int64_t& d : dims) d = wrap_dim(d, static_cast<size_t>(rank));
  return dims;
}

// ONNX reductions over `axes`: ReduceSum takes them as an input from opset 13, the others as an
// attribute until opset 18.
std::string reduce(GraphBuilder& g, const std::string& op, const std::string& x,
                   const std::vector<int64_t>& axes, bool keepdim, const std::string& hint = "") {
  const auto keep = attr("keepdims", static_cast<int64_t>(keepdim));
  if (axes.empty()) return g.add("Identity", {x}, {}, hint);  // a 0-D tensor reduces to itself
  if (op == "ReduceSum") return g.add(op, {x, g.ints(axes)}, {keep}, hint);
  return g.add(op, {x}, {keep, attr("axes", axes)}, hint);
}

LowerFn reduction(const char* op, const char* dims_arg) {
  return [op, dims_arg](NodeLowering& n) {
    const DType t = n.out_dtype();
    const bool keepdim = n.node().op()->arg_position("keepdim") >= 0 && n.flag("keepdim");
    n.set(reduce(n.g, op, n.tensor_as("self", t), reduced_dims(n, dims_arg), keepdim,
                 n.node().name()));
  };
}

// mean: ReduceMean, or where a reduced dim may be 0, the sum over the count of elements, so that
// the mean of nothing is NaN as in PyTorch (ONNX Runtime's ReduceMean of nothing gives 0).
void mean(NodeLowering& n) {
  const DType t = n.out_dtype();
  const bool keepdim = n.flag("keepdim");
  const std::vector<int64_t> dims = reduced_dims(n, "dim");
  const std::string x = n.tensor_as("self", t);
  const bool may_be_empty = std::any_of(dims.begin(), dims.end(), [&n](int64_t d) {
    const std::optional<int64_t> v = sym::as_int(n.spec("self").sizes[static_cast<size_t>(d)]);
    return !v || *v == 0;
  });
  if (!may_be_empty) return n.set(reduce(n.g, "ReduceMean", x, dims, keepdim, n.node().name()));
  GraphBuilder& g = n.g;
  const std::string sizes = g.add("Gather", {g.add("Shape", {x}), g.ints(dims)},
                                  {attr("axis", int64_t{0})});
  const std::string count = g.add("ReduceProd", {sizes}, {attr("keepdims", int64_t{0})});
  n.emit("Div", {reduce(g, "ReduceSum", x, dims, keepdim), g.cast(count, DType::Int64, t)});
}

// any(): whether some element is nonzero, as the maximum of the elements as 0/1.
LowerFn any(const char* dims_arg) {
  return [dims_arg](NodeLowering& n) {
    GraphBuilder& g = n.g;
    const std::string ones = g.cast(n.tensor_as("self", DType::Bool), DType::Bool, DType::Int32);
    const bool keepdim = n.node().op()->arg_position("keepdim") >= 0 && n.flag("keepdim");
    const std::string max = reduce(g, "ReduceMax", ones, reduced_dims(n, dims_arg), keepdim);
    n.emit("Cast", {max}, {attr("to", static_cast<int64_t>(onnx_type(DType::Bool)))});
  };
}

// argmax / argmin over `dim`, or over the flattened tensor when dim is None.
LowerFn arg_reduction(const char* op) {
  return [op](NodeLowering& n) {
    const bool keepdim = n.flag("keepdim");
    if (n.is_none("dim")) {
      const std::string flat = n.g.add("Reshape", {n.tensor("self"), n.g.ints({-1})});
      const std::string r = n.g.add(op, {flat}, {attr("axis", int64_t{0}),
                                                  attr("keepdims", int64_t{0})});
      return n.emit("Reshape", {r, n.g.shape(n.out_spec().sizes)});
    }
    const auto rank = static_cast<int64_t>(n.spec("self").sizes.size());
    if (rank == 0) return n.set(n.g.constant(DType::Int64, {0}, {}));  // the only element
    const int64_t dim = n.dim();
    n.emit(op, {n.tensor("self")},
           {attr("axis", dim), attr("keepdims", static_cast<int64_t>(keepdim))});
  };
}

// max.dim / min.dim: the values and their indices.
LowerFn value_and_index(const char* reduce_op, const char* arg_op) {
  return [reduce_op, arg_op](NodeLowering& n) {
    const auto rank = static_cast<int64_t>(n.spec("self").sizes.size());
    const std::string x = n.tensor("self");
    if (rank == 0) {  // a 0-D tensor is its own maximum, at index 0
      n.set(0, n.g.add("Identity", {x}, {}, n.node().name()));
      return n.set(1, n.g.constant(DType::Int64, {0}, {}));
    }
    const int64_t dim = n.dim();
    const bool keepdim = n.flag("keepdim");
    n.set(0, reduce(n.g, reduce_op, x, {dim}, keepdim, n.node().name()));
    n.set(1, n.g.add(arg_op, {x}, {attr("axis", dim), attr("keepdims", int64_t{keepdim})},
                     n.node().name() + "_indices"));
  };
}

// var: the mean of squared deviations, divided by N - correction.
void var(NodeLowering& n) {
  const DType t = n.out_dtype();
  GraphBuilder& g = n.g;
  const std::vector<int64_t> dims = reduced_dims(n, "dim");
  double correction = 1;
  if (n.node().op()->arg_position("correction") >= 0) {
    if (!n.is_none("correction")) correction = n.real("correction");
  } else {
    correction = n.flag("unbiased") ? 1 : 0;
  }
  const std::string x = n.tensor_as("self", t);
  const std::string mean = reduce(g, "ReduceMean", x, dims, true);
  const std::string d = g.add("Sub", {x, mean});
  const std::string ss = reduce(g, "ReduceSum", g.add("Mul", {d, d}), dims, n.flag("keepdim"));
  sym::ExprPtr count = sym::integer(1);
  for (int64_t dim : dims) count = sym::mul(count, n.spec("self").sizes[static_cast<size_t>(dim)]);
  // A 0-D count: a reduction over every dim is 0-D.
  std::string denominator = g.cast(g.sym_scalar(count), DType::Int64, t);
  denominator = g.add("Sub", {denominator, g.scalar(t, correction)});
  denominator = g.add("Max", {denominator, g.scalar(t, 0)});  // N <= correction gives inf/nan
  n.emit("Div", {ss, denominator});
}

LowerFn softmax(const char* op) {
  return [op](NodeLowering& n) {
    const auto rank = static_cast<int64_t>(n.spec("self").sizes.size());
    const std::string x = n.tensor_as("self", n.out_dtype());
    if (rank == 0) {  // ONNX's softmax wants a dim: over a one-element one
      const std::string y = n.g.add(op, {n.g.add("Reshape", {x, n.g.ints({1})})},
                                    {attr("axis", int64_t{0})});
      return n.emit("Reshape", {y, n.g.ints({})});
    }
    const int64_t dim = n.dim();
    n.emit(op, {x}, {attr("axis", dim)});
  };
}

void cumsum(NodeLowering& n) {
  const auto rank = static_cast<int64_t>(n.spec("self").sizes.size());
  const int64_t dim = n.dim();
  if (rank == 0) return n.emit("Identity", {n.tensor_as("self", n.out_dtype())});
  n.emit("CumSum", {n.tensor_as("self", n.out_dtype()), n.g.ints({dim})});
}

// sort: the top size(dim) elements, largest first when descending. (ONNX's TopK gives the lower
// index first among equal values; PyTorch's sort does not promise an order for them.)
void sort(NodeLowering& n) {
  const auto rank = static_cast<int64_t>(n.spec("self").sizes.size());
  if (rank == 0) {
    n.set(0, n.g.add("Identity", {n.tensor("self")}));
    n.set(1, n.g.constant(DType::Int64, {0}, {}));
    return;
  }
  const int64_t dim = n.dim();
  const std::string k = n.g.sym_int(n.spec("self").sizes[static_cast<size_t>(dim)]);
  n.emit("TopK", {n.tensor("self"), k},
         {attr("axis", dim), attr("largest", static_cast<int64_t>(n.flag("descending"))),
          attr("sorted", int64_t{1})});
}

void topk(NodeLowering& n) {
  const int64_t dim = n.dim();
  n.emit("TopK", {n.tensor("self"), n.g.sym_int(n.size("k"))},
         {attr("axis", dim), attr("largest", static_cast<int64_t>(n.flag("largest"))),
          attr("sorted", static_cast<int64_t>(n.flag("sorted")))});
}

}  // namespace

LoweringList reduction_lowerings() {
  return {
      {"aten::sum.dim_IntList", reduction("ReduceSum", "dim")},
      {"aten::mean.dim", mean},
      {"aten::amax", reduction("ReduceMax", "dim")},
      {"aten::amin", reduction("ReduceMin", "dim")},
      {"aten::prod", reduction("ReduceProd", "")},
      {"aten::prod.dim_int", reduction("ReduceProd", "dim")},
      {"aten::any", any("")},
      {"aten::any.dim", any("dim")},
      {"aten::any.dims", any("dim")},
      {"aten::argmax", arg_reduction("ArgMax")},
      {"aten::argmin", arg_reduction("ArgMin")},
      {"aten::max.dim", value_and_index("ReduceMax", "ArgMax")},
      {"aten::min.dim", value_and_index("ReduceMin", "ArgMin")},
      {"aten::var.correction", var},
      {"aten::var.dim", var},
      {"aten::_softmax", softmax("Softmax")},
      {"aten::_log_softmax", softmax("LogSoftmax")},
      {"aten::cumsum", cumsum},
      {"aten::sort", sort},
      {"aten::topk", topk},
  };
}

}  // namespace xport::onnx
