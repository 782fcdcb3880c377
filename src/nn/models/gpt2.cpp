// Hugging Face's GPT-2 (GPT2LMHeadModel) with its checkpoint names.
#include <cmath>
#include <limits>
#include <string_view>

#include "nn/init.h"
#include "xport/nn/models.h"
#include "xport/ops/functions.h"

namespace xport::models {
namespace {

// GPT-2's Conv1D: a linear layer whose weight is stored [in, out].
class Conv1D : public nn::Module {
 public:
  Conv1D(int64_t nf, int64_t nx) : Module("Conv1D") {
    weight = register_parameter("weight", nn::detail::normal({nx, nf}, 0.02));
    bias = register_parameter("bias", zeros({nf}));
  }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    std::vector<SymInt> out(x.sizes().begin(), x.sizes().end() - 1);
    const Tensor rows = x.reshape({-1, x.size(-1)});
    out.push_back(weight.size(1));
    return addmm(bias, rows, weight).view(out);
  }
  Tensor weight, bias;
};

class Attention : public nn::Module {
 public:
  explicit Attention(const Gpt2Config& c)
      : Module("GPT2Attention"), heads_(c.n_head), head_dim_(c.n_embd / c.n_head) {
    c_attn_ = register_module("c_attn", std::make_shared<Conv1D>(3 * c.n_embd, c.n_embd));
    c_proj_ = register_module("c_proj", std::make_shared<Conv1D>(c.n_embd, c.n_embd));
    attn_dropout_ = register_module("attn_dropout", std::make_shared<nn::Dropout>(0.1));
    resid_dropout_ = register_module("resid_dropout", std::make_shared<nn::Dropout>(0.1));
    if (c.cache_size > 0) {
      const std::vector<int64_t> shape = {c.cache_batch, c.n_head, c.cache_size, head_dim_};
      k_cache = register_buffer("k_cache", zeros(shape), /*persistent=*/false);
      v_cache = register_buffer("v_cache", zeros(shape), /*persistent=*/false);
    }
  }
  Tensor forward(const Tensor& x) override { return attend(x, Tensor()); }
  // With `positions`, through the KV cache.
  Tensor attend(const Tensor& x, const Tensor& positions) {
    nn::ModuleScope scope(*this);
    const SymInt N = x.size(0), T = x.size(1), E = x.size(2);
    const std::vector<Tensor> qkv = split(c_attn_->forward(x), E, 2);
    auto heads = [&](const Tensor& t) { return t.reshape({N, T, heads_, -1}).transpose(1, 2); };
    const Tensor q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
    Tensor a;
    if (positions.defined()) {
      k_cache.index_copy_(2, positions, k);
      v_cache.index_copy_(2, positions, v);
      // Cached position j is visible to the new token at position p when j <= p; positions not
      // written yet lie beyond every p.
      const Tensor cached = arange(k_cache.int_size(2), DType::Int64);
      const Tensor visible = cached.unsqueeze(0).le(positions.unsqueeze(1));
      a = scaled_dot_product_attention(q, k_cache, v_cache, visible, 0.0, /*is_causal=*/false);
    } else if (!is_training()) {
      a = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, /*is_causal=*/true);
    } else {
      // Training: the attention weights go through dropout, so spell the attention out.
      const Tensor future = triu(ones({T, T}, DType::Bool), 1);
      const Tensor scores = masked_fill(matmul(q, k.transpose(-2, -1)), future,
                                        -std::numeric_limits<double>::infinity()) *
                            (1.0 / std::sqrt(static_cast<double>(head_dim_)));
      a = matmul(attn_dropout_->forward(softmax(scores, -1)), v);
    }
    return resid_dropout_->forward(c_proj_->forward(a.transpose(1, 2).reshape({N, T, E})));
  }

 private:
  int64_t heads_, head_dim_;
  std::shared_ptr<Conv1D> c_attn_, c_proj_;
  std::shared_ptr<nn::Dropout> attn_dropout_, resid_dropout_;

 public:
  Tensor k_cache, v_cache;
};

class Mlp : public nn::Module {
 public:
  explicit Mlp(const Gpt2Config& c) : Module("GPT2MLP") {
    c_fc_ = register_module("c_fc", std::make_shared<Conv1D>(4 * c.n_embd, c.n_embd));
    c_proj_ = register_module("c_proj", std::make_shared<Conv1D>(c.n_embd, 4 * c.n_embd));
    dropout_ = register_module("dropout", std::make_shared<nn::Dropout>(0.1));
  }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    return dropout_->forward(c_proj_->forward(gelu(c_fc_->forward(x), "tanh")));
  }

 private:
  std::shared_ptr<Conv1D> c_fc_, c_proj_;
  std::shared_ptr<nn::Dropout> dropout_;
};

class Block : public nn::Module {
 public:
  explicit Block(const Gpt2Config& c) : Module("GPT2Block") {
    const std::vector<int64_t> shape = {c.n_embd};
    ln_1_ = register_module("ln_1", std::make_shared<nn::LayerNorm>(shape, c.layer_norm_epsilon));
    attn_ = register_module("attn", std::make_shared<Attention>(c));
    ln_2_ = register_module("ln_2", std::make_shared<nn::LayerNorm>(shape, c.layer_norm_epsilon));
    mlp_ = register_module("mlp", std::make_shared<Mlp>(c));
  }
  Tensor forward(const Tensor& x) override { return run(x, Tensor()); }
  Tensor run(const Tensor& x, const Tensor& positions) {
    nn::ModuleScope scope(*this);
    const Tensor h = x + attn_->attend(ln_1_->forward(x), positions);
    return h + mlp_->forward(ln_2_->forward(h));
  }
  Attention& attention() { return *attn_; }

 private:
  std::shared_ptr<nn::LayerNorm> ln_1_, ln_2_;
  std::shared_ptr<Attention> attn_;
  std::shared_ptr<Mlp> mlp_;
};

// The output projection, its weight tied to the token embedding.
class LmHead : public nn::Module {
 public:
  explicit LmHead(const Tensor& tied_weight) : Module("Linear") {
    weight = register_parameter("weight", tied_weight);
  }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    return linear(x, weight);
  }
  Tensor weight;
};

// (transformer.)h.<i>.attn.bias or (transformer.)h.<i>.attn.masked_bias.
bool is_mask_buffer(std::string_view name) {
  if (name.starts_with("transformer.")) name.remove_prefix(std::string_view("transformer.").size());
  if (!name.starts_with("h.")) return false;
  name.remove_prefix(2);
  const size_t digits = name.find_first_not_of("0123456789");
  if (digits == 0 || digits == std::string_view::npos) return false;
  name.remove_prefix(digits);
  return name == ".attn.bias" || name == ".attn.masked_bias";
}

}  // namespace

GPT2::GPT2(const Gpt2Config& config) : nn::Module("GPT2LMHeadModel"), config_(config) {
  XPORT_CHECK(config.n_embd > 0 && config.n_head > 0 && config.n_embd % config.n_head == 0,
              InvalidInput, "gpt2: n_embd (", config.n_embd, ") must be divisible by n_head (",
              config.n_head, ")");
  transformer_ = register_module("transformer", std::make_shared<nn::Module>("GPT2Model"));
  wte_ = transformer_->register_module(
      "wte", std::make_shared<nn::Embedding>(config.vocab_size, config.n_embd));
  wpe_ = transformer_->register_module(
      "wpe", std::make_shared<nn::Embedding>(config.n_positions, config.n_embd));
  wte_->weight.copy_(nn::detail::normal(wte_->weight.int_sizes(), 0.02));
  wpe_->weight.copy_(nn::detail::normal(wpe_->weight.int_sizes(), 0.01));
  drop_ = transformer_->register_module("drop", std::make_shared<nn::Dropout>(0.1));
  h_ = transformer_->register_module("h", std::make_shared<nn::ModuleList>());
  for (int64_t i = 0; i < config.n_layer; ++i) h_->push_back(std::make_shared<Block>(config));
  ln_f_ = transformer_->register_module(
      "ln_f", std::make_shared<nn::LayerNorm>(std::vector<int64_t>{config.n_embd},
                                              config.layer_norm_epsilon));
  lm_head_ = register_module("lm_head", std::make_shared<LmHead>(wte_->weight));
}

Tensor GPT2::forward(const Tensor& ids) { return run(ids, Tensor()); }

Tensor GPT2::forward(const Tensor& ids, const Tensor& positions) {
  XPORT_CHECK(config_.cache_size > 0, InvalidInput,
              "GPT2: forward(ids, positions) needs a KV cache; build the model with "
              "Gpt2Config::cache_size > 0");
  XPORT_CHECK(positions.dim() == 1 && positions.dtype() == DType::Int64, InvalidInput,
              "GPT2: positions must be int64 [T], got ", positions.dim(), "-D ",
              dtype_name(positions.dtype()));
  XPORT_CHECK(ids.dim() == 2 && static_cast<bool>(ids.size(0) == config_.cache_batch),
              InvalidInput, "GPT2: the KV cache holds a batch of ", config_.cache_batch,
              "; got ids of ", ids.dim(), " dims");
  XPORT_CHECK(static_cast<bool>(positions.size(0) == ids.size(1)), InvalidInput,
              "GPT2: ", ids.size(1), " new tokens but ", positions.size(0), " positions");
  return run(ids, positions);
}

void GPT2::reset_cache() {
  for (size_t i = 0; i < h_->size(); ++i) {
    Attention& a = static_cast<Block&>(*(*h_)[i]).attention();
    if (a.k_cache.defined()) {
      a.k_cache.zero_();
      a.v_cache.zero_();
    }
  }
}

Tensor GPT2::run(const Tensor& ids, const Tensor& positions) {
  nn::ModuleScope scope(*this);
  XPORT_CHECK(ids.dim() == 2 && (ids.dtype() == DType::Int64 || ids.dtype() == DType::Int32),
              InvalidInput, "GPT2: expected token ids [N, T] of int64, got ", ids.dim(), "-D ",
              dtype_name(ids.dtype()));
  const SymInt T = ids.size(1);
  XPORT_CHECK(static_cast<bool>(T <= config_.n_positions), InvalidInput, "GPT2: sequence length ",
              T, " exceeds n_positions (", config_.n_positions, ")");
  Tensor h;
  {
    nn::ModuleScope inner(*transformer_);
    // Without a cache, positions 0..T-1 are the first T rows of wpe: a slice, which stays
    // symbolic under capture where arange(T) would need T's value.
    const Tensor position_rows =
        positions.defined() ? wpe_->forward(positions) : wpe_->weight.slice(0, 0, T);
    h = drop_->forward(wte_->forward(ids) + position_rows);
    for (size_t i = 0; i < h_->size(); ++i) h = static_cast<Block&>(*(*h_)[i]).run(h, positions);
    h = ln_f_->forward(h);
  }
  return lm_head_->forward(h);
}

nn::NamedTensors GPT2::adapt_state_dict(nn::NamedTensors state) const {
  // The Hub's files hold GPT2Model names (no "transformer."), no lm_head.weight (it is tied),
  // and the causal-mask buffers attn.bias / attn.masked_bias, which this model builds itself.
  nn::NamedTensors out;
  for (auto& [name, t] : state) {
    if (is_mask_buffer(name)) continue;
    const bool prefixed = name.rfind("transformer.", 0) == 0 || name.rfind("lm_head.", 0) == 0;
    out.emplace_back(prefixed ? name : "transformer." + name, t);
  }
  return out;
}

std::shared_ptr<GPT2> gpt2(Gpt2Config config) { return std::make_shared<GPT2>(config); }

}  // namespace xport::models
