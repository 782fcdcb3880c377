// Linear, Conv2d, Embedding, Dropout and the activation layers.
#include <cmath>

#include "nn/init.h"
#include "xport/nn/layers.h"
#include "xport/ops/functions.h"

namespace xport::nn {

Linear::Linear(int64_t in_features, int64_t out_features, bool has_bias) : Module("Linear") {
  XPORT_CHECK(in_features > 0 && out_features > 0, InvalidInput,
              "Linear: in_features and out_features must be positive, got ", in_features, " and ",
              out_features);
  // PyTorch: kaiming_uniform_(a=sqrt(5)) for the weight, which is U(+-1/sqrt(fan_in)).
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  weight = register_parameter("weight", detail::uniform({out_features, in_features}, bound));
  if (has_bias) bias = register_parameter("bias", detail::uniform({out_features}, bound));
}

Tensor Linear::forward(const Tensor& input) {
  ModuleScope scope(*this);
  return linear(input, weight, bias);
}

Conv2d::Conv2d(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size,
               Options opts)
    : Module("Conv2d"), options(std::move(opts)) {
  if (kernel_size.size() == 1) kernel_size.push_back(kernel_size[0]);
  auto pair = [](std::vector<int64_t>& v, const char* what) {
    if (v.size() == 1) v.push_back(v[0]);
    XPORT_CHECK(v.size() == 2, InvalidInput, "Conv2d: ", what, " needs 1 or 2 values, got ",
                v.size());
  };
  pair(kernel_size, "kernel_size");
  pair(options.stride, "stride");
  pair(options.padding, "padding");
  pair(options.dilation, "dilation");
  XPORT_CHECK(
      options.groups > 0 && in_channels % options.groups == 0 && out_channels % options.groups == 0,
      InvalidInput, "Conv2d: in_channels (", in_channels, ") and out_channels (", out_channels,
      ") must both be divisible by groups (", options.groups, ")");
  const int64_t fan_in = in_channels / options.groups * kernel_size[0] * kernel_size[1];
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  weight = register_parameter("weight", detail::uniform({out_channels, in_channels / options.groups,
                                                         kernel_size[0], kernel_size[1]},
                                                        bound));
  if (options.bias) bias = register_parameter("bias", detail::uniform({out_channels}, bound));
}

Tensor Conv2d::forward(const Tensor& input) {
  ModuleScope scope(*this);
  auto sym = [](const std::vector<int64_t>& v) { return std::vector<SymInt>(v.begin(), v.end()); };
  return conv2d(input, weight, bias, sym(options.stride), sym(options.padding),
                sym(options.dilation), options.groups);
}

Embedding::Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding)
    : Module("Embedding") {
  if (padding && *padding < 0) *padding += num_embeddings;
  XPORT_CHECK(!padding || (*padding >= 0 && *padding < num_embeddings), InvalidInput,
              "Embedding: padding_idx must be within num_embeddings (", num_embeddings, ")");
  padding_idx = padding;
  Tensor w = detail::normal({num_embeddings, embedding_dim}, 1.0);
  if (padding_idx) w.select(0, *padding_idx).zero_();
  weight = register_parameter("weight", w);
}

Tensor Embedding::forward(const Tensor& ids) {
  ModuleScope scope(*this);
  return embedding(weight, ids, padding_idx.value_or(-1));
}

Dropout::Dropout(double p_) : Module("Dropout"), p(p_) {
  XPORT_CHECK(p >= 0 && p <= 1, InvalidInput, "Dropout: p must be in [0, 1], got ", p);
}

Tensor Dropout::forward(const Tensor& input) {
  ModuleScope scope(*this);
  if (!is_training() || p == 0) return input;
  return dropout(input, p, true);
}

Tensor ReLU::forward(const Tensor& input) {
  ModuleScope scope(*this);
  return relu(input);
}

Tensor GELU::forward(const Tensor& input) {
  ModuleScope scope(*this);
  return gelu(input, approximate);
}

Tensor SiLU::forward(const Tensor& input) {
  ModuleScope scope(*this);
  return silu(input);
}

Tensor Identity::forward(const Tensor& input) {
  ModuleScope scope(*this);
  return input;
}

}  // namespace xport::nn
