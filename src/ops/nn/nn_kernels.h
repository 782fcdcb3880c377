#pragma once
// The nn ops' out-variant kernels: one named function per op, its parameters the schema's
// arguments in order, then one tensor per result. Registration binds them (XPORT_OP_KERNEL) and
// a code generator can call them. Arguments are valid: the op's meta function checked them.

#include <optional>
#include <vector>

#include "xport/tensor.h"

namespace xport::ops {

// attention_ops.cpp
void scaled_dot_product_attention_out(const Tensor& query, const Tensor& key, const Tensor& value,
                                      const std::optional<Tensor>& attn_mask, double dropout_p,
                                      bool is_causal, std::optional<double> scale,
                                      bool enable_gqa, const Tensor& out);

// dropout_ops.cpp
void native_dropout_out(const Tensor& input, double p, std::optional<bool> train,
                        const Tensor& output, const Tensor& mask);

// embedding_ops.cpp
void embedding_out(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                   bool scale_grad_by_freq, bool sparse, const Tensor& out);

// norm_ops.cpp
void upsample_nearest2d_vec_out(const Tensor& input,
                                const std::optional<std::vector<int64_t>>& output_size,
                                const std::optional<std::vector<double>>& scale_factors,
                                const Tensor& out);
void upsample_bilinear2d_vec_out(const Tensor& input,
                                 const std::optional<std::vector<int64_t>>& output_size,
                                 bool align_corners,
                                 const std::optional<std::vector<double>>& scale_factors,
                                 const Tensor& out);
void _native_batch_norm_legit_no_stats_out(const Tensor& input, const std::optional<Tensor>& weight,
                                           const std::optional<Tensor>& bias, bool training,
                                           double momentum, double eps, const Tensor& out,
                                           const Tensor& save_mean, const Tensor& save_invstd);
void native_group_norm_out(const Tensor& input, const std::optional<Tensor>& weight,
                           const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW,
                           int64_t group, double eps, const Tensor& out, const Tensor& mean,
                           const Tensor& rstd);
void native_layer_norm_out(const Tensor& input, const std::vector<int64_t>& normalized_shape,
                           const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                           double eps, const Tensor& out, const Tensor& mean, const Tensor& rstd);
void _native_batch_norm_legit_no_training_out(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, double momentum, double eps,
    const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd);
void _native_batch_norm_legit_functional_out(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, bool training, double momentum,
    double eps, const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd,
    const Tensor& running_mean_out, const Tensor& running_var_out);
void _native_batch_norm_legit_out(const Tensor& input, const std::optional<Tensor>& weight,
                                  const std::optional<Tensor>& bias, const Tensor& running_mean,
                                  const Tensor& running_var, bool training, double momentum,
                                  double eps, const Tensor& out, const Tensor& save_mean,
                                  const Tensor& save_invstd);

// pool_ops.cpp
void max_pool2d_with_indices_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                                 const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& padding,
                                 const std::vector<int64_t>& dilation, bool ceil_mode,
                                 const Tensor& out, const Tensor& indices);
void max_pool2d_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                    const std::vector<int64_t>& dilation, bool ceil_mode, const Tensor& out);
void avg_pool2d_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                    bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override,
                    const Tensor& out);
void _adaptive_avg_pool2d_out(const Tensor& self, const std::vector<int64_t>& output_size,
                              const Tensor& out);
void max_pool3d_with_indices_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                                 const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& padding,
                                 const std::vector<int64_t>& dilation, bool ceil_mode,
                                 const Tensor& out, const Tensor& indices);
void avg_pool3d_out(const Tensor& self, const std::vector<int64_t>& kernel_size,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                    bool ceil_mode, bool count_include_pad,
                    std::optional<int64_t> divisor_override, const Tensor& out);
void _adaptive_avg_pool3d_out(const Tensor& self, const std::vector<int64_t>& output_size,
                              const Tensor& out);
void _embedding_bag_out(const Tensor& weight, const Tensor& indices, const Tensor& offsets,
                        bool scale_grad_by_freq, int64_t mode, bool sparse,
                        const std::optional<Tensor>& per_sample_weights, bool include_last_offset,
                        int64_t padding_idx, const Tensor& output, const Tensor& offset2bag,
                        const Tensor& bag_size, const Tensor& max_indices);
void embedding_dense_backward_out(const Tensor& grad_output, const Tensor& indices,
                                  int64_t num_weights, int64_t padding_idx,
                                  bool scale_grad_by_freq, const Tensor& out);
void max_pool2d_with_indices_backward_out(const Tensor& grad_output, const Tensor& self,
                                          const std::vector<int64_t>& kernel_size,
                                          const std::vector<int64_t>& stride,
                                          const std::vector<int64_t>& padding,
                                          const std::vector<int64_t>& dilation, bool ceil_mode,
                                          const Tensor& indices, const Tensor& grad_input);
void avg_pool2d_backward_out(const Tensor& grad_output, const Tensor& self,
                             const std::vector<int64_t>& kernel_size,
                             const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding, bool ceil_mode,
                             bool count_include_pad, std::optional<int64_t> divisor_override,
                             const Tensor& grad_input);
void _adaptive_avg_pool2d_backward_out(const Tensor& grad_output, const Tensor& self,
                                       const Tensor& grad_input);
void col2im_out(const Tensor& self, const std::vector<int64_t>& output_size,
                const std::vector<int64_t>& kernel_size, const std::vector<int64_t>& dilation,
                const std::vector<int64_t>& padding, const std::vector<int64_t>& stride,
                const Tensor& out);
void grid_sampler_2d_out(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                         int64_t padding_mode, bool align_corners, const Tensor& out);

}  // namespace xport::ops
