#pragma once
// What the training tests share: losses as torch.nn.functional computes them, and small models.

#include <memory>
#include <vector>

#include "xport/xport.h"

namespace xport::test_support {

/// Mean squared error, as F.mse_loss.
inline Tensor mse(const Tensor& out, const Tensor& target) { return (out - target).pow(2).mean(); }

/// Cross entropy of logits [..., C] against class ids [...], as F.cross_entropy.
inline Tensor cross_entropy(const Tensor& logits, const Tensor& targets) {
  return -gather(log_softmax(logits, -1), -1, targets.unsqueeze(-1)).mean();
}

/// A 2-layer, 32-wide GPT-2 over a 97-token vocabulary.
inline std::shared_ptr<models::GPT2> tiny_gpt2() {
  models::Gpt2Config config;
  config.vocab_size = 97;
  config.n_positions = 32;
  config.n_embd = 32;
  config.n_layer = 2;
  config.n_head = 4;
  return models::gpt2(config);
}

/// Convolutions, batch norm, ReLU, max pool, average pool and a linear layer: [N, 3, H, W] ->
/// 10 logits.
struct SmallCnn : nn::Module {
  std::shared_ptr<nn::Conv2d> conv1 =
      register_module("conv1", std::make_shared<nn::Conv2d>(3, 16, std::vector<int64_t>{3, 3}));
  std::shared_ptr<nn::BatchNorm2d> bn1 =
      register_module("bn1", std::make_shared<nn::BatchNorm2d>(16));
  std::shared_ptr<nn::Conv2d> conv2 =
      register_module("conv2", std::make_shared<nn::Conv2d>(16, 32, std::vector<int64_t>{3, 3}));
  std::shared_ptr<nn::BatchNorm2d> bn2 =
      register_module("bn2", std::make_shared<nn::BatchNorm2d>(32));
  std::shared_ptr<nn::Linear> fc = register_module("fc", std::make_shared<nn::Linear>(32, 10));
  Tensor forward(const Tensor& x) override {
    Tensor h = max_pool2d(relu(bn1->forward(conv1->forward(x))), {2, 2});
    h = relu(bn2->forward(conv2->forward(h)));
    return fc->forward(adaptive_avg_pool2d(h, {1, 1}).flatten(1));
  }
};

}  // namespace xport::test_support
