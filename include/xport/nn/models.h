#pragma once
/// \file The reference models. Parameter names follow PyTorch's (torchvision ResNet,
/// nn.TransformerEncoder, Hugging Face GPT-2 and BERT), so their checkpoints load unchanged.

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

/// Hugging Face BertConfig's fields (config.json), with BERT-base's defaults.
struct BertModelConfig {
  int64_t vocab_size = 30522;
  int64_t hidden_size = 768;
  int64_t num_hidden_layers = 12;
  int64_t num_attention_heads = 12;
  int64_t intermediate_size = 3072;
  int64_t max_position_embeddings = 512;
  int64_t type_vocab_size = 2;
  double layer_norm_eps = 1e-12;
  std::string hidden_act = "gelu";  ///< gelu (erf), gelu_new (tanh), relu
  /// Reads a model folder's config.json; InvalidInput naming the field that does not fit.
  static BertModelConfig from_json_file(const std::string& path);
};

/// Hugging Face's BertModel: embeddings.{word_embeddings, position_embeddings,
/// token_type_embeddings, LayerNorm}, the embeddings.position_ids buffer, encoder.layer.<i>.
/// {attention.self.{query, key, value}, attention.output.{dense, LayerNorm}, intermediate.dense,
/// output.{dense, LayerNorm}}, pooler.dense. Every token has token type 0.
/// ids, attention_mask: [N, T] int64 (mask 1 = token, 0 = padding) -> last hidden state
/// [N, T, hidden_size]; padded positions attend to the tokens but no token attends to them.
class Bert : public nn::Module {
 public:
  explicit Bert(const BertModelConfig& config);
  /// Every position a token (no padding).
  Tensor forward(const Tensor& ids) override;
  Tensor forward(const Tensor& ids, const Tensor& attention_mask);
  /// BertModel's pooler_output: tanh(pooler.dense(last_hidden_state[:, 0])).
  Tensor pooler_output(const Tensor& last_hidden_state);
  const BertModelConfig& config() const { return config_; }

 protected:
  /// Checkpoints written without embeddings.position_ids (it is 0, 1, 2, ...) load too.
  nn::NamedTensors adapt_state_dict(nn::NamedTensors state) const override;

 private:
  BertModelConfig config_;
  std::shared_ptr<nn::Module> embeddings_, encoder_, pooler_;
  std::shared_ptr<nn::ModuleList> layers_;
  std::shared_ptr<nn::Linear> pooler_dense_;
};
/// A BertModel with BERT's initialisation (normal(0, 0.02) weights).
std::shared_ptr<Bert> bert(BertModelConfig config = {});
/// A Hugging Face BertModel from a model folder: DIR/config.json and DIR/model.safetensors,
/// loaded strictly (names and shapes must match).
std::shared_ptr<Bert> bert_from_pretrained(const std::string& dir);

/// sentence-transformers' pooling of token embeddings into one vector per text.
enum class Pooling { Mean, Cls };

/// A sentence-transformers model over a BERT: token embeddings, pooled (Mean: averaged over
/// the tokens the mask keeps; Cls: the first token's), then scaled to unit length when
/// `normalize`. ids, attention_mask: [N, T] int64 -> embeddings [N, hidden_size].
class SentenceEncoder : public nn::Module {
 public:
  SentenceEncoder(std::shared_ptr<Bert> bert, Pooling pooling, bool normalize,
                  int64_t max_seq_length);
  Tensor forward(const Tensor& ids) override;
  Tensor forward(const Tensor& ids, const Tensor& attention_mask);
  Bert& bert() { return *bert_; }
  Pooling pooling() const { return pooling_; }
  bool normalizes() const { return normalize_; }
  /// The longest tokenized text the model was trained for (sentence_bert_config.json);
  /// sentence-transformers truncates to it.
  int64_t max_seq_length() const { return max_seq_length_; }

 private:
  std::shared_ptr<Bert> bert_;
  Pooling pooling_;
  bool normalize_;
  int64_t max_seq_length_;
};
/// A sentence-transformers model folder whose first module is a BERT (all-MiniLM-L6-v2 and
/// its kind): modules.json, the BERT's config.json and model.safetensors, the pooling
/// module's config.json, sentence_bert_config.json. UnsupportedOp for a module or pooling mode
/// it does not implement.
std::shared_ptr<SentenceEncoder> sentence_encoder_from_pretrained(const std::string& dir);

}  // namespace xport::models
