#pragma once
/// \file The reference models. Parameter names follow PyTorch's (torchvision ResNet,
/// nn.TransformerEncoder, Hugging Face GPT-2), so their checkpoints load unchanged.

#include <memory>
#include <string>
#include <vector>

#include "xport/nn/layers.h"

namespace xport::models {

/// Linear layers of the given widths with GELU between them (none after the last), held in
/// `layers` (names layers.0.weight, layers.2.weight, ...). x: [N, widths.front()].
class MLP : public nn::Module {
 public:
  explicit MLP(const std::vector<int64_t>& widths);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Sequential> layers;
};
std::shared_ptr<MLP> mlp(std::vector<int64_t> widths);

/// torchvision's ResNet: conv1, bn1, relu, maxpool, layer1..layer4 of BasicBlock or Bottleneck
/// blocks (conv1/bn1/conv2/bn2[/conv3/bn3], downsample.0/downsample.1), avgpool, fc.
/// x: [N, 3, H, W] float -> logits [N, num_classes].
class ResNet : public nn::Module {
 public:
  /// bottleneck: Bottleneck blocks (expansion 4) instead of BasicBlock; blocks: per stage.
  ResNet(bool bottleneck, const std::vector<int64_t>& blocks, int64_t num_classes = 1000);
  Tensor forward(const Tensor& x) override;

 private:
  std::shared_ptr<nn::Conv2d> conv1_;
  std::shared_ptr<nn::BatchNorm2d> bn1_;
  std::vector<std::shared_ptr<nn::Sequential>> stages_;
  std::shared_ptr<nn::Linear> fc_;
};
std::shared_ptr<ResNet> resnet18(int64_t num_classes = 1000);
std::shared_ptr<ResNet> resnet50(int64_t num_classes = 1000);

struct BertConfig {
  int64_t num_layers = 12;
  int64_t hidden = 768;
  int64_t heads = 12;
  int64_t feedforward = 3072;
  std::string activation = "gelu";
  double layer_norm_eps = 1e-5;
  bool norm_first = false;
};

/// nn.TransformerEncoder(TransformerEncoderLayer(..., batch_first=True), num_layers): layers.<i>.
/// x: [N, T, hidden] -> [N, T, hidden]; key_padding_mask [N, T] (true = padding) is optional.
class BertEncoder : public nn::Module {
 public:
  explicit BertEncoder(const BertConfig& config);
  Tensor forward(const Tensor& x) override { return forward(x, Tensor()); }
  Tensor forward(const Tensor& x, const Tensor& key_padding_mask);
  std::shared_ptr<nn::ModuleList> layers;
};
std::shared_ptr<BertEncoder> bert_encoder(BertConfig config = {});

struct Gpt2Config {
  int64_t vocab_size = 50257;
  int64_t n_positions = 1024;
  int64_t n_embd = 768;
  int64_t n_layer = 12;
  int64_t n_head = 12;
  double layer_norm_epsilon = 1e-5;
  /// Positions the KV cache holds (0: no cache). With a cache, forward(ids, positions) writes
  /// the new tokens' keys and values at `positions` and attends over everything cached.
  int64_t cache_size = 0;
  int64_t cache_batch = 1;  ///< the batch the cache is laid out for
};

/// Hugging Face's GPT2LMHeadModel: transformer.{wte, wpe, h.<i>.{ln_1, attn.c_attn, attn.c_proj,
/// ln_2, mlp.c_fc, mlp.c_proj}, ln_f} and lm_head tied to wte. Conv1D weights are stored
/// [in, out] as in the checkpoints. ids: [N, T] int64 -> logits [N, T, vocab_size].
/// load_state_dict also takes the Hub's layout: names without `transformer.`, no lm_head.weight,
/// and the h.<i>.attn.bias / masked_bias mask buffers (checked, then ignored).
///
/// With config.cache_size > 0 every attention layer holds a KV cache as two buffers,
/// `transformer.h.<i>.attn.{k,v}_cache` [cache_batch, n_head, cache_size, head_dim] (not
/// persistent: outside the state dict). forward(ids, positions) runs T new tokens (ids
/// [cache_batch, T]) at absolute positions (int64 [T]): it updates both caches in place at
/// those positions (index_copy_) and attends over every cached position up to each token's own.
/// Exported with T dynamic (Dim("tokens", 1, cache_size)), one program serves the prefill of a
/// prompt and each one-token decode step.
class GPT2 : public nn::Module {
 public:
  explicit GPT2(const Gpt2Config& config);
  Tensor forward(const Tensor& ids) override;
  /// Runs the new tokens `ids` at `positions` through the KV cache (see above).
  Tensor forward(const Tensor& ids, const Tensor& positions);
  /// Zeroes the caches (a new sequence may also simply overwrite from position 0).
  void reset_cache();
  const Gpt2Config& config() const { return config_; }

 protected:
  nn::NamedTensors adapt_state_dict(nn::NamedTensors state) const override;

 private:
  Gpt2Config config_;
  std::shared_ptr<nn::Module> transformer_;
  std::shared_ptr<nn::Embedding> wte_, wpe_;
  std::shared_ptr<nn::Dropout> drop_;
  std::shared_ptr<nn::ModuleList> h_;
  std::shared_ptr<nn::LayerNorm> ln_f_;
  std::shared_ptr<nn::Module> lm_head_;
  Tensor run(const Tensor& ids, const Tensor& positions);
};
std::shared_ptr<GPT2> gpt2(Gpt2Config config = {});

}  // namespace xport::models
