// Free functions of the nn family: each calls its op once looked up.
#include "xport/ops/nn_functions.h"

#include "kernels/cpu/dropout.h"
#include "kernels/cpu/random.h"
#include "ops/op_util.h"

namespace xport {

using ops::call1;

namespace {
Value opt(const Tensor& t) { return t.defined() ? Value(t) : Value(); }
// ATen's `int[2] stride=[]`: an empty stride is the kernel size.
std::vector<int64_t> stride_or_kernel(std::vector<int64_t> stride,
                                      const std::vector<int64_t>& kernel) {
  return stride.empty() ? kernel : stride;
}
}  // namespace

Tensor max_pool2d(const Tensor& self, std::vector<int64_t> kernel_size, std::vector<int64_t> stride,
                  std::vector<int64_t> padding, std::vector<int64_t> dilation, bool ceil_mode) {
  stride = stride_or_kernel(std::move(stride), kernel_size);
  return call1(XPORT_OP("aten::max_pool2d"),
               {self, kernel_size, stride, padding, dilation, ceil_mode});
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self,
                                                   std::vector<int64_t> kernel_size,
                                                   std::vector<int64_t> stride,
                                                   std::vector<int64_t> padding,
                                                   std::vector<int64_t> dilation, bool ceil_mode) {
  stride = stride_or_kernel(std::move(stride), kernel_size);
  const std::vector<Tensor> outs =
      call_tensors(XPORT_OP("aten::max_pool2d_with_indices"),
                   {self, kernel_size, stride, padding, dilation, ceil_mode});
  return {outs[0], outs[1]};
}

Tensor avg_pool2d(const Tensor& self, std::vector<int64_t> kernel_size, std::vector<int64_t> stride,
                  std::vector<int64_t> padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  stride = stride_or_kernel(std::move(stride), kernel_size);
  return call1(XPORT_OP("aten::avg_pool2d"),
               {self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override ? Value(*divisor_override) : Value()});
}

Tensor adaptive_avg_pool2d(const Tensor& self, SymIntList output_size) {
  return call1(XPORT_OP("aten::adaptive_avg_pool2d"), {self, output_size.vec()});
}

Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled) {
  return call1(XPORT_OP("aten::batch_norm"),
               {input, opt(weight), opt(bias), opt(running_mean), opt(running_var), training,
                momentum, eps, cudnn_enabled});
}

Tensor layer_norm(const Tensor& input, SymIntList normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps, bool cudnn_enable) {
  return call1(XPORT_OP("aten::layer_norm"),
               {input, normalized_shape.vec(), opt(weight), opt(bias), eps, cudnn_enable});
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     SymIntList normalized_shape,
                                                     const Tensor& weight, const Tensor& bias,
                                                     double eps) {
  const std::vector<Tensor> outs =
      call_tensors(XPORT_OP("aten::native_layer_norm"),
                   {input, normalized_shape.vec(), opt(weight), opt(bias), eps});
  return {outs[0], outs[1], outs[2]};
}

Tensor embedding(const Tensor& weight, const Tensor& indices, SymInt padding_idx,
                 bool scale_grad_by_freq, bool sparse) {
  return call1(XPORT_OP("aten::embedding"),
               {weight, indices, std::move(padding_idx), scale_grad_by_freq, sparse});
}

Tensor dropout(const Tensor& input, double p, bool train) {
  return call1(XPORT_OP("aten::dropout"), {input, p, train});
}

void manual_seed(uint64_t seed) { kernels::cpu::seed_random(seed); }

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  return call1(
      XPORT_OP("aten::scaled_dot_product_attention"),
      {query, key, value, opt(attn_mask), dropout_p, is_causal, scale ? Value(*scale) : Value()});
}

}  // namespace xport
