#pragma once
// Normalization kernels: layer norm over trailing dims, batch norm with running
// statistics.

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// Layer norm of `input` seen as [M, N] rows (N = the normalized trailing
/// elements). weight and bias (N elements) may be undefined. `mean` and `rstd`
/// get M values each.
void layer_norm_out(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t N,
                    double eps, const Tensor& out, const Tensor& mean, const Tensor& rstd);

/// Inference batch norm over dim 1: out = (x - running_mean) / sqrt(running_var
/// + eps) * w + b, applied as one scale and shift per channel. weight and bias
/// may be undefined.
void batch_norm_inference_out(const Tensor& input, const Tensor& weight, const Tensor& bias,
                              const Tensor& running_mean, const Tensor& running_var, double eps,
                              const Tensor& out);

/// Training batch norm over dim 1 with the batch's statistics: out = (x - mean) * invstd * w + b;
/// `save_mean` and `save_invstd` (C values, float32 for reduced inputs) get the batch's mean and
/// 1 / sqrt(biased variance + eps). When `running_mean_out` is defined, it gets
/// (1 - momentum) * running_mean + momentum * mean, and `running_var_out` the same with the
/// unbiased variance; an out may be its input (the in-place op). weight and bias may be undefined.
void batch_norm_training_out(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             const Tensor& running_mean, const Tensor& running_var,
                             double momentum, double eps, const Tensor& out,
                             const Tensor& save_mean, const Tensor& save_invstd,
                             const Tensor& running_mean_out, const Tensor& running_var_out);

/// Group norm of `input` [N, C, HxW...] (contiguous order): each (n, group) of C / group
/// channels is normalized by its own mean and biased variance, then scaled and shifted per
/// channel (weight and bias, C values, may be undefined). `mean` and `rstd` get N * group values.
void group_norm_out(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t N,
                    int64_t C, int64_t HxW, int64_t group, double eps, const Tensor& out,
                    const Tensor& mean, const Tensor& rstd);

/// How a normalization's rows map to its weights: `rows` rows of `cols` contiguous elements were
/// each normalized by their own mean and rstd; element `col` of row `row` was then scaled by
/// weight (row % groups) * channels + col / inner. Layer norm: groups 1, channels = cols,
/// inner 1. Group norm: rows N * group, groups = group, channels = C / group, inner = HxW.
struct NormLayout {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t groups = 1;
  int64_t channels = 0;
  int64_t inner = 1;
};

/// The gradients of that normalization (native_layer_norm_backward,
/// native_group_norm_backward) from grad_out and the forward's input, mean and rstd (one per
/// row): grad_input = rstd * (g - mean(g) - xhat * mean(g * xhat)) over each row, with
/// xhat = (x - mean) * rstd and g = grad_out * weight; grad_weight sums grad_out * xhat and
/// grad_bias grad_out per weight (groups * channels values). An undefined result is not
/// computed; weight may be undefined (all ones).
void norm_backward_out(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                       const Tensor& rstd, const Tensor& weight, const NormLayout& layout,
                       const Tensor& grad_input, const Tensor& grad_weight,
                       const Tensor& grad_bias);

}  // namespace xport::kernels::cpu
