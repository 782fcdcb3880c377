// BatchNorm2d and LayerNorm.
#include "ops/op_util.h"
#include "xport/nn/layers.h"
#include "xport/ops/functions.h"

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
  if (is_training()) {
    // As PyTorch's F.batch_norm: one value per channel has no variance to learn from.
    const SymInt count = input.size(0) * input.size(2) * input.size(3);
    XPORT_CHECK(static_cast<bool>(count > 1), InvalidInput,
                "BatchNorm2d: training needs more than one value per channel, got input of shape ",
                ops::shape_str(input.sizes()), "; call eval() to use the running statistics");
    // The op updates running_mean and running_var in place; the module counts the batches.
    num_batches_tracked.add_(1);
  }
  return batch_norm(input, weight, bias, running_mean, running_var, is_training(), momentum, eps,
                    true);
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
