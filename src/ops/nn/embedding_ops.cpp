// Embedding lookup.
#include "kernels/cpu/embedding.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): the last
// three only affect gradients.
std::vector<TensorMeta> embedding_meta(const OpArgs& args) {
  const Tensor& weight = args.tensor("weight");
  const Tensor& indices = args.tensor("indices");
  XPORT_CHECK(weight.dim() == 2, InvalidInput, args.name(),
              ": weight must be 2-D [num_embeddings, embedding_dim], got ",
              shape_str(weight.sizes()));
  XPORT_CHECK(indices.dtype() == DType::Int64 || indices.dtype() == DType::Int32, InvalidInput,
              args.name(), ": indices must be int64 or int32, got ", dtype_name(indices.dtype()),
              "; convert them with .to(DType::Int64)");
  std::vector<SymInt> sizes = indices.sizes();
  sizes.push_back(weight.size(1));
  return {contiguous_meta(std::move(sizes), weight.dtype())};
}

// ATen's sum fast path (float weights, no padding row) leaves offset2bag empty.
bool bag_fast_path(DType weight, int64_t mode, int64_t padding_idx) {
  return mode == 0 && padding_idx < 0 && weight != DType::Float64;
}

// _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
// per_sample_weights, include_last_offset, padding_idx) -> (output, offset2bag, bag_size,
// max_indices); the auxiliary results have the indices' dtype.
std::vector<TensorMeta> embedding_bag_meta(const OpArgs& args) {
  const Tensor& weight = args.tensor("weight");
  const Tensor& indices = args.tensor("indices");
  const Tensor& offsets = args.tensor("offsets");
  const int64_t mode = args.integer("mode");
  XPORT_CHECK(weight.dim() == 2, InvalidInput, args.name(),
              ": weight must be 2-D [num_embeddings, embedding_dim], got ",
              shape_str(weight.sizes()));
  XPORT_CHECK(is_floating(weight.dtype()), InvalidInput, args.name(),
              ": needs a floating point weight, got ", dtype_name(weight.dtype()));
  XPORT_CHECK(indices.dim() == 1 && offsets.dim() == 1, InvalidInput, args.name(),
              ": indices and offsets must be 1-D, got ", shape_str(indices.sizes()), " and ",
              shape_str(offsets.sizes()), "; flatten 2-D indices and give one offset per row");
  for (const Tensor* t : {&indices, &offsets}) {
    XPORT_CHECK(t->dtype() == DType::Int64 || t->dtype() == DType::Int32, InvalidInput,
                args.name(), ": indices and offsets must be int64 or int32, got ",
                dtype_name(t->dtype()));
  }
  XPORT_CHECK(indices.dtype() == offsets.dtype(), InvalidInput, args.name(),
              ": indices and offsets must have the same dtype, got ",
              dtype_name(indices.dtype()), " and ", dtype_name(offsets.dtype()));
  XPORT_CHECK(mode >= 0 && mode <= 2, InvalidInput, args.name(),
              ": mode is 0 (sum), 1 (mean) or 2 (max), got ", mode);
  const Tensor per_sample = args.optional_tensor("per_sample_weights");
  if (per_sample.defined()) {
    XPORT_CHECK(mode == 0, InvalidInput, args.name(),
                ": per_sample_weights is only supported for mode='sum'");
    XPORT_CHECK(per_sample.dtype() == weight.dtype() && per_sample.dim() == 1 &&
                    static_cast<bool>(per_sample.sizes()[0] == indices.sizes()[0]),
                InvalidInput, args.name(),
                ": per_sample_weights must be 1-D, one per index, of the weight's dtype; got ",
                dtype_name(per_sample.dtype()), shape_str(per_sample.sizes()));
  }
  const bool include_last = args.boolean("include_last_offset");
  XPORT_CHECK(!include_last || !static_cast<bool>(offsets.sizes()[0] == 0), InvalidInput,
              args.name(), ": include_last_offset needs at least one offset");
  const SymInt bags = include_last ? offsets.sizes()[0] - 1 : offsets.sizes()[0];
  const DType aux = indices.dtype();
  const SymInt visited =
      bag_fast_path(weight.dtype(), mode, args.integer("padding_idx")) ? SymInt(0)
                                                                       : indices.sizes()[0];
  return {contiguous_meta({bags, weight.sizes()[1]}, weight.dtype()),
          contiguous_meta({visited}, aux), contiguous_meta({bags}, aux),
          mode == 2 ? contiguous_meta({bags, weight.sizes()[1]}, aux)
                    : contiguous_meta({bags}, aux)};
}

}  // namespace

void _embedding_bag_out(const Tensor& weight, const Tensor& indices, const Tensor& offsets,
                        bool, int64_t mode, bool, const std::optional<Tensor>& per_sample_weights,
                        bool, int64_t padding_idx, const Tensor& output,
                        const Tensor& offset2bag, const Tensor& bag_size,
                        const Tensor& max_indices) {
  const int64_t rows = weight.int_size(0);
  if (indices.int_numel() > 0) {
    const auto [lo, hi] = cpu::index_min_max(indices);
    XPORT_CHECK(lo >= 0 && hi < rows, InvalidInput, "aten::_embedding_bag: index ",
                lo < 0 ? lo : hi, " is out of range for a weight of ", rows, " rows");
  }
  if (offsets.int_numel() > 0) {
    // Offsets lie within indices (ATen does not check that they never decrease either).
    const auto [first, last] = cpu::index_min_max(offsets);
    XPORT_CHECK(first >= 0 && last <= indices.int_numel(), InvalidInput,
                "aten::_embedding_bag: offsets must lie in [0, ", indices.int_numel(),
                "], got values from ", first, " to ", last);
  }
  cpu::embedding_bag_out(weight, indices, offsets, static_cast<cpu::BagMode>(mode),
                         per_sample_weights.value_or(Tensor()), padding_idx, output, offset2bag,
                         bag_size, max_indices);
}

void embedding_out(const Tensor& weight, const Tensor& indices, int64_t, bool, bool,
                   const Tensor& out) {
  // Validated here, before the (parallel) lookup.
  if (indices.int_numel() == 0) return;
  const auto [lo, hi] = cpu::index_min_max(indices);
  const int64_t rows = weight.int_size(0);
  XPORT_CHECK(lo >= 0 && hi < rows, InvalidInput, "aten::embedding: index ", lo < 0 ? lo : hi,
              " is out of range for a weight of ", rows, " rows (valid indices are 0 to ", rows - 1,
              ")");
  cpu::embedding_out(weight, indices, out);
}

void embedding_dense_backward_out(const Tensor& grad_output, const Tensor& indices,
                                  int64_t num_weights, int64_t padding_idx,
                                  bool scale_grad_by_freq, const Tensor& out) {
  if (indices.int_numel() > 0) {
    const auto [lo, hi] = cpu::index_min_max(indices);
    XPORT_CHECK(lo >= 0 && hi < num_weights, InvalidInput,
                "aten::embedding_dense_backward: index ", lo < 0 ? lo : hi,
                " is out of range for ", num_weights, " weights");
  }
  cpu::embedding_dense_backward_out(grad_output, indices, padding_idx, scale_grad_by_freq, out);
}

namespace {

// Each row's gradient is the sum of the gradients of the positions that looked it up.
void embedding_derivative(Backward& b) {
  const OpArgs& a = b.args();
  b.set("weight", call1(XPORT_OP("aten::embedding_dense_backward"),
                        {b.grad(), a["indices"], a.tensor("weight").sizes()[0], a["padding_idx"],
                         a["scale_grad_by_freq"]}));
}

}  // namespace

void register_embedding_ops() {
  register_op({
      .schema = "aten::_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, "
                "bool scale_grad_by_freq=False, int mode=0, bool sparse=False, "
                "Tensor? per_sample_weights=None, bool include_last_offset=False, "
                "int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)",
      .meta = embedding_bag_meta,
      .kernel = XPORT_OP_KERNEL(_embedding_bag_out),
      .core = true,
  });
  // The gradient of embedding's weight (training graphs).
  register_op({
      .schema = "aten::embedding_dense_backward(Tensor grad_output, Tensor indices, "
                "SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& grad = args.tensor("grad_output");
            const Tensor& indices = args.tensor("indices");
            XPORT_CHECK(indices.dtype() == DType::Int64 || indices.dtype() == DType::Int32,
                        InvalidInput, args.name(), ": indices must be int64 or int32, got ",
                        dtype_name(indices.dtype()));
            XPORT_CHECK(grad.dtype() == DType::Float32 || grad.dtype() == DType::Float64,
                        InvalidInput, args.name(), ": needs a float32 or float64 gradient, got ",
                        dtype_name(grad.dtype()));
            XPORT_CHECK(grad.dim() == indices.dim() + 1, InvalidInput, args.name(),
                        ": grad_output ", shape_str(grad.sizes()),
                        " must be the indices' shape ", shape_str(indices.sizes()),
                        " plus the embedding dim");
            return std::vector<TensorMeta>{contiguous_meta(
                {args.sym_int("num_weights"), grad.sizes().back()}, grad.dtype())};
          },
      .kernel = XPORT_OP_KERNEL(embedding_dense_backward_out),
      .core = true,
  });
  register_op({
      .schema = "aten::embedding(Tensor weight, Tensor indices, SymInt "
                "padding_idx=-1, "
                "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
      .meta = embedding_meta,
      .kernel = XPORT_OP_KERNEL(embedding_out),
      .derivative = embedding_derivative,
      .core = true,
  });
}

}  // namespace xport::ops
