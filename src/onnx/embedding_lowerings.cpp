// Bags of embeddings and the gradient of an embedding.
#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

// Rows `values` ([M, D]) added into zero rows [rows, D] at the rows `places` ([M]) name.
std::string add_rows(GraphBuilder& g, DType t, const std::string& values,
                     const std::string& places, sym::ExprPtr rows, sym::ExprPtr width) {
  const std::string zeros = g.add("Expand", {g.scalar(t, 0), g.shape({rows, width})});
  return g.add("ScatterND", {zeros, g.add("Unsqueeze", {places, g.ints({1})}), values},
               {attr("reduction", std::string("add"))});
}

// How many times each of `rows` rows is named by `places` ([M]), as `t`.
std::string row_counts(GraphBuilder& g, DType t, const std::string& places,
                       const std::string& counted, sym::ExprPtr rows) {
  const std::string zeros = g.add("Expand", {g.scalar(t, 0), g.shape({rows})});
  return g.add("ScatterElements", {zeros, places, counted},
               {attr("axis", int64_t{0}), attr("reduction", std::string("add"))});
}

// embedding_dense_backward: each index's row of grad_output added to the weight row it names,
// except the padding row's; scale_grad_by_freq divides by how often the row is named.
void embedding_dense_backward(NodeLowering& n) {
  GraphBuilder& g = n.g;
  const DType t = n.out_dtype();
  const sym::ExprPtr rows = n.size("num_weights"), width = n.out_spec().sizes.at(1);
  const std::string index = g.add("Reshape", {n.tensor_as("indices", DType::Int64), g.ints({-1})});
  std::string grad =
      g.add("Reshape", {n.tensor_as("grad_output", t), g.shape({sym::integer(-1), width})});
  const int64_t padding = n.integer("padding_idx");
  std::string scale;  // per index, when not 1
  if (padding >= 0) {
    scale = g.cast(g.add("Not", {g.add("Equal", {index, g.integer(DType::Int64, padding)})}),
                   DType::Bool, t);
  }
  if (n.flag("scale_grad_by_freq")) {
    const std::string ones = g.add("Expand", {g.scalar(t, 1), g.add("Shape", {index})});
    const std::string counts =
        g.add("Gather", {row_counts(g, t, index, ones, rows), index}, {attr("axis", int64_t{0})});
    scale = g.add("Div", {scale.empty() ? ones : scale, counts});
  }
  if (!scale.empty()) grad = g.add("Mul", {grad, g.add("Unsqueeze", {scale, g.ints({1})})});
  n.set(add_rows(g, t, grad, index, rows, width));
}

// _embedding_bag, its output: bag b sums (mode 0) or averages (mode 1) the weight rows of
// indices[offsets[b]:offsets[b + 1]], the last bag running to the end (or, with
// include_last_offset, to the last offset); the padding row counts for nothing,
// per_sample_weights scale the rows of a sum. Each index's bag is how many offsets are at or
// before it, less one: -1 before the first, the bag count past include_last_offset's last.
void embedding_bag(NodeLowering& n) {
  for (int i = 1; i < 4; ++i) {
    if (!n.unused(i)) {
      n.refuse("its auxiliary results (offset2bag, bag_size, max_indices) are read; ONNX gets "
               "the output only");
    }
  }
  const int64_t mode = n.integer("mode");
  if (mode == 2) n.refuse("mode 'max' needs opset 18 (ScatterND's max)");
  GraphBuilder& g = n.g;
  const DType t = n.out_dtype();
  const sym::ExprPtr bags = n.out_spec().sizes.at(0), width = n.out_spec().sizes.at(1);
  const std::string index = n.tensor_as("indices", DType::Int64);
  const std::string positions =
      g.add("Range", {g.integer(DType::Int64, 0), g.sym_scalar(n.spec("indices").sizes.at(0)),
                      g.integer(DType::Int64, 1)});
  const std::string offsets = n.tensor_as("offsets", DType::Int64);
  const std::string started = g.add("GreaterOrEqual", {g.add("Unsqueeze", {positions, g.ints({1})}),
                                                       g.add("Unsqueeze", {offsets, g.ints({0})})});
  const std::string bag_of = g.add(
      "Sub", {g.add("ReduceSum", {g.cast(started, DType::Bool, DType::Int64), g.ints({1})},
                    {attr("keepdims", int64_t{0})}),
              g.integer(DType::Int64, 1)});
  std::string counted = g.add("And", {g.add("GreaterOrEqual", {bag_of, g.integer(DType::Int64, 0)}),
                                      g.add("Less", {bag_of, g.sym_int(bags)})});
  const int64_t padding = n.integer("padding_idx");
  if (padding >= 0) {
    const std::string is_padding = g.add("Equal", {index, g.integer(DType::Int64, padding)});
    counted = g.add("And", {counted, g.add("Not", {is_padding})});
  }
  const std::string counted_t = g.cast(counted, DType::Bool, t);
  std::string scale = counted_t;
  if (!n.is_none("per_sample_weights")) {
    scale = g.add("Mul", {scale, n.tensor_as("per_sample_weights", t)});
  }
  const std::string rows =
      g.add("Gather", {n.tensor_as("weight", t), index}, {attr("axis", int64_t{0})});
  const std::string place = g.add("Where", {counted, bag_of, g.integer(DType::Int64, 0)});
  const std::string sums =
      add_rows(g, t, g.add("Mul", {rows, g.add("Unsqueeze", {scale, g.ints({1})})}), place, bags,
               width);
  if (mode == 0) return n.set(0, sums);
  // An empty bag's mean is 0 (its sum is).
  const std::string sizes =
      g.add("Max", {row_counts(g, t, place, counted_t, bags), g.scalar(t, 1)});
  n.set(0, g.add("Div", {sums, g.add("Unsqueeze", {sizes, g.ints({1})})}));
}

}  // namespace

LoweringList embedding_lowerings() {
  return {
      {"aten::embedding_dense_backward", embedding_dense_backward},
      {"aten::_embedding_bag", embedding_bag},
  };
}

}  // namespace xport::onnx
