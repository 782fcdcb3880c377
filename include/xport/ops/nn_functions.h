#pragma once
/// \file Free functions of the nn op family (ATen names), thin calls into the
/// op registry. An undefined Tensor stands for ATen's None in `Tensor?`
/// arguments.

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport {

// ---- pooling over the last two dims of [C, H, W] or [N, C, H, W] ----
/// Max over windows; an empty stride means stride = kernel_size.
Tensor max_pool2d(const Tensor& self, std::vector<int64_t> kernel_size,
                  std::vector<int64_t> stride = {}, std::vector<int64_t> padding = {0},
                  std::vector<int64_t> dilation = {1}, bool ceil_mode = false);
/// Max values and their int64 indices into each flattened H*W input plane.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self,
                                                   std::vector<int64_t> kernel_size,
                                                   std::vector<int64_t> stride = {},
                                                   std::vector<int64_t> padding = {0},
                                                   std::vector<int64_t> dilation = {1},
                                                   bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& self, std::vector<int64_t> kernel_size,
                  std::vector<int64_t> stride = {}, std::vector<int64_t> padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool2d(const Tensor& self, SymIntList output_size);

// ---- normalization ----
/// Inference only (training=true throws UnsupportedOp); normalizes over dim 1.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled);
Tensor layer_norm(const Tensor& input, SymIntList normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5, bool cudnn_enable = true);
/// (output, mean, rstd); mean and rstd keep the normalized dims as size 1.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     SymIntList normalized_shape,
                                                     const Tensor& weight, const Tensor& bias,
                                                     double eps);

// ---- others ----
/// Rows of `weight` [num_embeddings, dim] gathered by int64/int32 `indices`.
Tensor embedding(const Tensor& weight, const Tensor& indices, SymInt padding_idx = -1,
                 bool scale_grad_by_freq = false, bool sparse = false);
/// With `train`, each element zeroed with probability p and the rest scaled by 1 / (1 - p), a
/// fresh mask per call (seeded by manual_seed); a copy of `input` otherwise.
Tensor dropout(const Tensor& input, double p, bool train);
/// Seeds the process-wide generator of the random ops (rand, randn, randperm and dropout's
/// masks), eagerly and in exported programs, as torch.manual_seed does.
void manual_seed(uint64_t seed);
/// softmax(query key^T * scale + attn_mask) value; a bool mask keeps positions
/// where it is true. scale defaults to 1 / sqrt(query.size(-1)).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0,
                                    bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

}  // namespace xport
