// BatchNorm2d and LayerNorm.
#include "xport/functions.h"
#include "xport/nn/layers.h"

namespace xport::nn {

BatchNorm2d::BatchNorm2d(int64_t num_features, double eps_, double momentum_, bool affine)
    : Module("BatchNorm2d"), eps(eps_), momentum(momentum_) {
  XPORT_CHECK(num_features > 0, InvalidInput, "BatchNorm2d: num_features must be positive, got ",
              num_features);
  if (affine) {
    weight = register_parameter("weight", ones({num_features}));
    bias = register_parameter("bias", zeros({num_features}));
  }
  running_mean = register_buffer("running_mean", zeros({num_features}));
  running_var = register_buffer("running_var", ones({num_features}));
  num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, DType::Int64));
}

Tensor BatchNorm2d::forward(const Tensor& input) {
  ModuleScope scope(*this);
  XPORT_CHECK(input.dim() == 4, InvalidInput,
              "BatchNorm2d: expected a 4-D [N, C, H, W] input, got ", input.dim(), "-D");
  if (!is_training()) {
    return batch_norm(input, weight, bias, running_mean, running_var, false, momentum, eps, true);
  }
  // Training: normalize with the batch's biased variance; the running variance takes the
  // unbiased one, as PyTorch does.
  const int64_t count = input.int_size(0) * input.int_size(2) * input.int_size(3);
  XPORT_CHECK(count > 1, InvalidInput,
              "BatchNorm2d: training needs more than one value per channel, got input of shape [",
              input.int_size(0), ", ", input.int_size(1), ", ", input.int_size(2), ", ",
              input.int_size(3), "]; call eval() to use the running statistics");
  const std::vector<int64_t> reduce = {0, 2, 3};
  const Tensor mean = input.mean(reduce);
  const Tensor var_biased = var(input, reduce, 0);
  const std::vector<SymInt> channel_shape = {1, input.size(1), 1, 1};
  Tensor y = (input - mean.view(channel_shape)) * (var_biased + eps).rsqrt().view(channel_shape);
  if (weight.defined()) y = y * weight.view(channel_shape) + bias.view(channel_shape);
  const double unbias = static_cast<double>(count) / static_cast<double>(count - 1);
  running_mean.copy_(running_mean * (1 - momentum) + mean.to(running_mean.dtype()) * momentum);
  running_var.copy_(running_var * (1 - momentum) +
                    (var_biased * unbias).to(running_var.dtype()) * momentum);
  num_batches_tracked.add_(1);
  return y;
}

LayerNorm::LayerNorm(std::vector<int64_t> shape, double eps_, bool elementwise_affine)
    : Module("LayerNorm"), normalized_shape(std::move(shape)), eps(eps_) {
  XPORT_CHECK(!normalized_shape.empty(), InvalidInput,
              "LayerNorm: normalized_shape must name at least one dim");
  if (elementwise_affine) {
    const std::vector<SymInt> sizes(normalized_shape.begin(), normalized_shape.end());
    weight = register_parameter("weight", ones(sizes));
    bias = register_parameter("bias", zeros(sizes));
  }
}

Tensor LayerNorm::forward(const Tensor& input) {
  ModuleScope scope(*this);
  const std::vector<SymInt> sizes(normalized_shape.begin(), normalized_shape.end());
  return layer_norm(input, sizes, weight, bias, eps);
}

}  // namespace xport::nn
