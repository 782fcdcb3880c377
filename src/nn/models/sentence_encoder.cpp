// sentence-transformers' Transformer -> Pooling -> Normalize over a BERT, from its model folder.
#include <filesystem>

#include "core/json_file.h"
#include "xport/nn/models.h"
#include "xport/ops/functions.h"
#include "xport/ops/reduction_functions.h"

namespace xport::models {
namespace {

nlohmann::json read_json(const std::filesystem::path& path) {
  return read_json_file(path.string(), "sentence_encoder_from_pretrained");
}

// The pooling module's config.json: the newer "pooling_mode" string or the older flags.
Pooling read_pooling(const std::filesystem::path& path) {
  const nlohmann::json j = read_json(path);
  std::vector<std::string> modes;
  if (j.contains("pooling_mode") && j["pooling_mode"].is_string()) {
    modes.push_back(j["pooling_mode"]);
  } else {
    for (const auto& [key, on] : j.items()) {
      if (key.starts_with("pooling_mode_") && on.is_boolean() && on.get<bool>()) {
        modes.push_back(key.substr(13));
      }
    }
  }
  XPORT_CHECK(modes.size() == 1, UnsupportedOp, "sentence_encoder_from_pretrained: ",
              path.string(), " asks for ", modes.size(),
              " pooling modes at once; exactly one (mean or cls) is implemented");
  const std::string& mode = modes[0];
  if (mode == "mean" || mode == "mean_tokens") return Pooling::Mean;
  if (mode == "cls" || mode == "cls_token") return Pooling::Cls;
  XPORT_FAIL(UnsupportedOp, "sentence_encoder_from_pretrained: pooling mode '", mode, "' in ",
             path.string(), " is not implemented; mean and cls are");
}

}  // namespace

SentenceEncoder::SentenceEncoder(std::shared_ptr<Bert> bert, Pooling pooling, bool normalize,
                                 int64_t max_seq_length)
    : nn::Module("SentenceTransformer"),
      bert_(register_module("bert", std::move(bert))),
      pooling_(pooling),
      normalize_(normalize),
      max_seq_length_(max_seq_length) {}

Tensor SentenceEncoder::forward(const Tensor& ids) {
  return forward(ids, ones_like(ids));
}

Tensor SentenceEncoder::forward(const Tensor& ids, const Tensor& attention_mask) {
  nn::ModuleScope scope(*this);
  const Tensor tokens = bert_->forward(ids, attention_mask);
  Tensor pooled;
  if (pooling_ == Pooling::Cls) {
    pooled = tokens.select(1, 0);
  } else {
    // The mean over the tokens the mask keeps (a count below 1e-9 counts as 1e-9, as
    // sentence-transformers clamps it).
    const Tensor keep = attention_mask.unsqueeze(-1).to(tokens.dtype());
    pooled = (tokens * keep).sum(std::vector<int64_t>{1}) /
             clamp(keep.sum(std::vector<int64_t>{1}), 1e-9, std::nullopt);
  }
  if (!normalize_) return pooled;
  // torch.nn.functional.normalize(p=2, dim=1): x / max(||x||, 1e-12).
  const Tensor norm = sqrt((pooled * pooled).sum(std::vector<int64_t>{1}, /*keepdim=*/true));
  return pooled / clamp(norm, 1e-12, std::nullopt);
}

std::shared_ptr<SentenceEncoder> sentence_encoder_from_pretrained(const std::string& dir) {
  const std::filesystem::path folder(dir);
  XPORT_CHECK(std::filesystem::exists(folder / "modules.json"), InvalidInput,
              "sentence_encoder_from_pretrained: ", dir,
              " has no modules.json, so it is not a sentence-transformers model folder; for a "
              "plain Hugging Face BertModel use bert_from_pretrained");
  std::shared_ptr<Bert> bert;
  std::optional<Pooling> pooling;
  bool normalize = false;
  for (const nlohmann::json& m : read_json(folder / "modules.json")) {
    const std::string type = m.value("type", "");
    const std::filesystem::path path = folder / m.value("path", "");
    if (type == "sentence_transformers.models.Transformer" && bert == nullptr) {
      bert = bert_from_pretrained(path.string());
    } else if (type == "sentence_transformers.models.Pooling" && bert && !pooling) {
      pooling = read_pooling(path / "config.json");
    } else if (type == "sentence_transformers.models.Normalize" && pooling && !normalize) {
      normalize = true;
    } else {
      XPORT_FAIL(UnsupportedOp, "sentence_encoder_from_pretrained: module '", type, "' (",
                 m.dump(), ") in ", (folder / "modules.json").string(),
                 " is not implemented here; Transformer (a BERT), Pooling and Normalize are, "
                 "in that order");
    }
  }
  XPORT_CHECK(bert && pooling, UnsupportedOp, "sentence_encoder_from_pretrained: ", dir,
              "/modules.json must list a Transformer and a Pooling module");
  int64_t max_seq_length = bert->config().max_position_embeddings;
  if (std::filesystem::exists(folder / "sentence_bert_config.json")) {
    const nlohmann::json j = read_json(folder / "sentence_bert_config.json");
    if (j.contains("max_seq_length") && j["max_seq_length"].is_number_integer()) {
      max_seq_length = std::min<int64_t>(max_seq_length, j["max_seq_length"].get<int64_t>());
    }
  }
  auto encoder = std::make_shared<SentenceEncoder>(std::move(bert), *pooling, normalize,
                                                   max_seq_length);
  encoder->eval();
  return encoder;
}

}  // namespace xport::models
