#include "xport/nn/models.h"

namespace xport::models {

BertEncoder::BertEncoder(const BertConfig& config) : nn::Module("BertEncoder") {
  XPORT_CHECK(config.num_layers > 0, InvalidInput, "bert_encoder: num_layers must be positive");
  layers = register_module("layers", std::make_shared<nn::ModuleList>());
  nn::TransformerEncoderLayer::Options options;
  options.dim_feedforward = config.feedforward;
  options.activation = config.activation;
  options.layer_norm_eps = config.layer_norm_eps;
  options.batch_first = true;
  options.norm_first = config.norm_first;
  for (int64_t i = 0; i < config.num_layers; ++i) {
    layers->push_back(
        std::make_shared<nn::TransformerEncoderLayer>(config.hidden, config.heads, options));
  }
}

Tensor BertEncoder::forward(const Tensor& x, const Tensor& key_padding_mask) {
  nn::ModuleScope scope(*this);
  Tensor y = x;
  for (size_t i = 0; i < layers->size(); ++i) {
    y = layers->at<nn::TransformerEncoderLayer>(i)->forward(y, Tensor(), key_padding_mask);
  }
  return y;
}

std::shared_ptr<BertEncoder> bert_encoder(BertConfig config) {
  return std::make_shared<BertEncoder>(config);
}

}  // namespace xport::models
