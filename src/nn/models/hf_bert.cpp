// Hugging Face's BertModel with its checkpoint names, and its config.json.
#include <filesystem>

#include "core/json_file.h"
#include "nn/init.h"
#include "xport/nn/models.h"
#include "xport/nn/safetensors.h"
#include "xport/ops/functions.h"
#include "xport/ops/nn_functions.h"

namespace xport::models {
namespace {

std::shared_ptr<nn::Linear> linear_layer(nn::Module& parent, const std::string& name,
                                         int64_t in, int64_t out) {
  auto layer = parent.register_module(name, std::make_shared<nn::Linear>(in, out));
  layer->weight.copy_(nn::detail::normal(layer->weight.int_sizes(), 0.02));
  layer->bias.zero_();
  return layer;
}

std::shared_ptr<nn::LayerNorm> layer_norm(nn::Module& parent, const BertModelConfig& c) {
  return parent.register_module(
      "LayerNorm", std::make_shared<nn::LayerNorm>(std::vector<int64_t>{c.hidden_size},
                                                   c.layer_norm_eps));
}

class Embeddings : public nn::Module {
 public:
  explicit Embeddings(const BertModelConfig& c) : Module("BertEmbeddings") {
    word_ = register_module("word_embeddings", embedding(c.vocab_size, c.hidden_size));
    position_ =
        register_module("position_embeddings", embedding(c.max_position_embeddings, c.hidden_size));
    token_type_ =
        register_module("token_type_embeddings", embedding(c.type_vocab_size, c.hidden_size));
    norm_ = layer_norm(*this, c);
  }
  Tensor forward(const Tensor& ids) override {
    nn::ModuleScope scope(*this);
    // Positions 0..T-1 are the first T rows (BertModel's position_ids[:, :T]); every token has
    // token type 0.
    const Tensor positions = position_->weight.slice(0, 0, ids.size(1));
    return norm_->forward(word_->forward(ids) + token_type_->weight.select(0, 0) + positions);
  }

 private:
  static std::shared_ptr<nn::Embedding> embedding(int64_t rows, int64_t width) {
    auto e = std::make_shared<nn::Embedding>(rows, width);
    e->weight.copy_(nn::detail::normal(e->weight.int_sizes(), 0.02));
    return e;
  }
  std::shared_ptr<nn::Embedding> word_, position_, token_type_;
  std::shared_ptr<nn::LayerNorm> norm_;
};

// attention.self and attention.output of one layer.
class Attention : public nn::Module {
 public:
  explicit Attention(const BertModelConfig& c)
      : Module("BertAttention"), heads_(c.num_attention_heads) {
    auto self = register_module("self", std::make_shared<nn::Module>("BertSelfAttention"));
    query_ = linear_layer(*self, "query", c.hidden_size, c.hidden_size);
    key_ = linear_layer(*self, "key", c.hidden_size, c.hidden_size);
    value_ = linear_layer(*self, "value", c.hidden_size, c.hidden_size);
    self_ = self;
    auto output = register_module("output", std::make_shared<nn::Module>("BertSelfOutput"));
    dense_ = linear_layer(*output, "dense", c.hidden_size, c.hidden_size);
    norm_ = layer_norm(*output, c);
    output_ = output;
  }
  // keep: bool [N, 1, 1, T], true where a key is a token; undefined: every key.
  Tensor attend(const Tensor& h, const Tensor& keep) {
    nn::ModuleScope scope(*this);
    const SymInt N = h.size(0), T = h.size(1), E = h.size(2);
    Tensor a;
    {
      nn::ModuleScope inner(*self_);
      auto heads = [&](nn::Linear& l) {
        return l.forward(h).view({N, T, heads_, -1}).transpose(1, 2);
      };
      a = scaled_dot_product_attention(heads(*query_), heads(*key_), heads(*value_), keep);
    }
    nn::ModuleScope inner(*output_);
    return norm_->forward(dense_->forward(a.transpose(1, 2).reshape({N, T, E})) + h);
  }

 private:
  int64_t heads_;
  std::shared_ptr<nn::Module> self_, output_;
  std::shared_ptr<nn::Linear> query_, key_, value_, dense_;
  std::shared_ptr<nn::LayerNorm> norm_;
};

class Layer : public nn::Module {
 public:
  explicit Layer(const BertModelConfig& c) : Module("BertLayer"), act_(c.hidden_act) {
    XPORT_CHECK(act_ == "gelu" || act_ == "gelu_new" || act_ == "relu", UnsupportedOp,
                "bert: hidden_act '", act_, "' is not implemented; use gelu, gelu_new or relu");
    attention_ = register_module("attention", std::make_shared<Attention>(c));
    intermediate_ = register_module("intermediate",
                                    std::make_shared<nn::Module>("BertIntermediate"));
    up_ = linear_layer(*intermediate_, "dense", c.hidden_size, c.intermediate_size);
    output_ = register_module("output", std::make_shared<nn::Module>("BertOutput"));
    down_ = linear_layer(*output_, "dense", c.intermediate_size, c.hidden_size);
    norm_ = layer_norm(*output_, c);
  }
  Tensor run(const Tensor& x, const Tensor& keep) {
    nn::ModuleScope scope(*this);
    const Tensor h = attention_->attend(x, keep);
    Tensor up;
    {
      nn::ModuleScope inner(*intermediate_);
      up = up_->forward(h);
      up = act_ == "relu" ? relu(up) : gelu(up, act_ == "gelu" ? "none" : "tanh");
    }
    nn::ModuleScope inner(*output_);
    return norm_->forward(down_->forward(up) + h);
  }

 private:
  std::string act_;
  std::shared_ptr<Attention> attention_;
  std::shared_ptr<nn::Module> intermediate_, output_;
  std::shared_ptr<nn::Linear> up_, down_;
  std::shared_ptr<nn::LayerNorm> norm_;
};

}  // namespace

BertModelConfig BertModelConfig::from_json_file(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "BertModelConfig");
  const std::string type = j.value("model_type", "bert");
  XPORT_CHECK(type == "bert", UnsupportedOp, "BertModelConfig: ", path, " describes a '", type,
              "' model; only 'bert' is implemented");
  const std::string positions = j.value("position_embedding_type", "absolute");
  XPORT_CHECK(positions == "absolute", UnsupportedOp, "BertModelConfig: ", path,
              " asks for position_embedding_type '", positions,
              "'; only 'absolute' is implemented");
  BertModelConfig c;
  auto integer = [&](const char* key, int64_t& field) {
    if (!j.contains(key)) return;
    XPORT_CHECK(j[key].is_number_integer() && j[key].get<int64_t>() > 0, InvalidInput,
                "BertModelConfig: ", path, ": ", key, " must be a positive integer, got ",
                j[key].dump());
    field = j[key].get<int64_t>();
  };
  integer("vocab_size", c.vocab_size);
  integer("hidden_size", c.hidden_size);
  integer("num_hidden_layers", c.num_hidden_layers);
  integer("num_attention_heads", c.num_attention_heads);
  integer("intermediate_size", c.intermediate_size);
  integer("max_position_embeddings", c.max_position_embeddings);
  integer("type_vocab_size", c.type_vocab_size);
  c.layer_norm_eps = j.value("layer_norm_eps", c.layer_norm_eps);
  c.hidden_act = j.value("hidden_act", c.hidden_act);
  return c;
}

Bert::Bert(const BertModelConfig& config) : nn::Module("BertModel"), config_(config) {
  XPORT_CHECK(config.hidden_size % config.num_attention_heads == 0, InvalidInput,
              "bert: hidden_size (", config.hidden_size,
              ") must be divisible by num_attention_heads (", config.num_attention_heads, ")");
  embeddings_ = register_module("embeddings", std::make_shared<Embeddings>(config));
  encoder_ = register_module("encoder", std::make_shared<nn::Module>("BertEncoder"));
  layers_ = encoder_->register_module("layer", std::make_shared<nn::ModuleList>());
  for (int64_t i = 0; i < config.num_hidden_layers; ++i) {
    layers_->push_back(std::make_shared<Layer>(config));
  }
  pooler_ = register_module("pooler", std::make_shared<nn::Module>("BertPooler"));
  pooler_dense_ = linear_layer(*pooler_, "dense", config.hidden_size, config.hidden_size);
}

Tensor Bert::forward(const Tensor& ids) { return forward(ids, Tensor()); }

Tensor Bert::forward(const Tensor& ids, const Tensor& attention_mask) {
  nn::ModuleScope scope(*this);
  XPORT_CHECK(ids.dim() == 2 && ids.dtype() == DType::Int64, InvalidInput,
              "BertModel: expected token ids [N, T] of int64, got ", ids.dim(), "-D ",
              dtype_name(ids.dtype()));
  XPORT_CHECK(static_cast<bool>(ids.size(1) <= config_.max_position_embeddings), InvalidInput,
              "BertModel: ", ids.size(1), " tokens exceed max_position_embeddings (",
              config_.max_position_embeddings,
              "); truncate the text (WordPiece::encode's max_len)");
  Tensor keep;
  if (attention_mask.defined()) {
    XPORT_CHECK(attention_mask.dim() == 2, InvalidInput,
                "BertModel: attention_mask must be [N, T] like the ids, got ",
                attention_mask.dim(), "-D");
    keep = attention_mask.to(DType::Bool).unsqueeze(1).unsqueeze(2);
  }
  Tensor h = embeddings_->forward(ids);
  {
    nn::ModuleScope inner(*encoder_);
    for (size_t i = 0; i < layers_->size(); ++i) h = layers_->at<Layer>(i)->run(h, keep);
  }
  return h;
}

Tensor Bert::pooler_output(const Tensor& last_hidden_state) {
  nn::ModuleScope scope(*pooler_);
  return tanh(pooler_dense_->forward(last_hidden_state.select(1, 0)));
}

nn::NamedTensors Bert::adapt_state_dict(nn::NamedTensors state) const {
  // Checkpoints of BertFor* models hold the BertModel under "bert." beside their heads.
  const bool nested = std::none_of(state.begin(), state.end(), [](const auto& kv) {
    return kv.first.starts_with("embeddings.");
  });
  nn::NamedTensors out;
  for (auto& [name, t] : state) {
    std::string key = name;
    if (nested) {
      if (!key.starts_with("bert.")) continue;
      key = key.substr(5);
    }
    // position_ids (0, 1, 2, ...) is what the slice of position_embeddings assumes.
    if (key == "embeddings.position_ids") {
      const Tensor expected = arange(t.int_numel(), DType::Int64).view(t.sizes());
      XPORT_CHECK(t.dtype() == DType::Int64 && allclose(t, expected, 0, 0), InvalidInput,
                  "BertModel: embeddings.position_ids in the checkpoint is not 0, 1, 2, ...; "
                  "only absolute positions from 0 are implemented");
      continue;
    }
    out.emplace_back(std::move(key), t);
  }
  return out;
}

std::shared_ptr<Bert> bert(BertModelConfig config) { return std::make_shared<Bert>(config); }

std::shared_ptr<Bert> bert_from_pretrained(const std::string& dir) {
  const std::filesystem::path folder(dir);
  const std::filesystem::path weights = folder / "model.safetensors";
  if (!std::filesystem::exists(weights)) {
    XPORT_CHECK(!std::filesystem::exists(folder / "pytorch_model.bin"), InvalidInput,
                "bert_from_pretrained: ", dir, " holds pytorch_model.bin but no model.safetensors;"
                " convert it once in Python (safetensors.torch.save_file(torch.load(...), "
                "'model.safetensors'))");
    XPORT_FAIL(InvalidInput, "bert_from_pretrained: ", dir, " has no model.safetensors");
  }
  auto model = bert(BertModelConfig::from_json_file((folder / "config.json").string()));
  load_safetensors(*model, weights.string());
  model->eval();
  return model;
}

}  // namespace xport::models
