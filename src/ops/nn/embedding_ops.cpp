// Embedding lookup.
#include "kernels/cpu/embedding.h"
#include "ops/nn/nn_kernels.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"

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

}  // namespace

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

void register_embedding_ops() {
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
      .core = true,
  });
}

}  // namespace xport::ops
