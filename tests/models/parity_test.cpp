// Parity with PyTorch 2.13: tests/models/make_parity_data.py builds the reference models and a
// set of layers in PyTorch, writes their weights (safetensors) and inputs/outputs (.npy); these
// tests load the same weights into xport's modules and compare the outputs. It also records a
// greedy generation by Hugging Face's GPT2LMHeadModel with its KV cache, which xport's KV-cache
// GPT-2 repeats eagerly, exported, and in the runtime from an archive.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "kernels/cpu/onednn.h"
#include "xport/nn/models.h"
#include "xport/nn/safetensors.h"
#include "xport/runtime.h"
#include "xport/xport.h"

namespace xport {
namespace {

using nlohmann::json;

const std::string& data_dir() {
  static const std::string dir = [] {
    const char* env = std::getenv("XPORT_PARITY_DIR");
    return std::string(env ? env : XPORT_PARITY_DIR);
  }();
  return dir;
}

const json& manifest() {
  static const json m = [] {
    std::ifstream in(data_dir() + "/manifest.json");
    if (!in) {
      throw std::runtime_error("no parity data in " + data_dir() +
                               "; run tests/models/make_parity_data.py " + data_dir() +
                               " (ctest runs it as the parity_data fixture)");
    }
    return json::parse(in);
  }();
  return m;
}

Tensor load(const std::string& relative) { return load_npy(data_dir() + "/" + relative); }

// max |actual - expected| relative to the output's scale, max |expected|.
double relative_error(const Tensor& actual, const Tensor& expected) {
  EXPECT_EQ(actual.int_sizes(), expected.int_sizes());
  if (actual.int_sizes() != expected.int_sizes()) return INFINITY;
  const Tensor a = actual.to(DType::Float64), e = expected.to(DType::Float64);
  const double scale = std::max(e.abs().max().item<double>(), 1e-30);
  return (a - e).abs().max().item<double>() / scale;
}

constexpr double kTolerance = 1e-4;

std::shared_ptr<nn::Module> make_model(const std::string& name) {
  if (name == "mlp") return models::mlp({1024, 4096, 4096, 1024});
  if (name == "resnet18") return models::resnet18();
  if (name == "resnet50") return models::resnet50();
  if (name == "bert") return models::bert_encoder();
  if (name == "gpt2") return models::gpt2();
  throw std::runtime_error("unknown model in manifest: " + name);
}

// The model exported for this input and run by the runtime: packed weights, fused kernels and
// oneDNN's own layouts passed between convolutions, as a deployed program runs.
Tensor run_in_runtime(nn::Module& model, const Tensor& input) {
  ExportedProgram program =
      export_program(model, [&](const Tensor& x) { return model.forward(x); }, {input});
  return runtime::Program::from_exported(std::move(program)).run({input}).at(0);
}

// Every case of one model: weights loaded once (strict), then each input against its output,
// eagerly and in the runtime. No oneDNN primitive the model made may be oneDNN's reference code
// (correct, but 100x slower: what a layout its kernels for this CPU lack gets).
void check_model(const std::string& model_name) {
  std::shared_ptr<nn::Module> model;
  int cases = 0;
  for (const json& entry : manifest().at("models")) {
    if (entry.at("model") != model_name) continue;
    SCOPED_TRACE(entry.at("case").get<std::string>());
    if (!model) {
      model = make_model(model_name);
      load_safetensors(*model, data_dir() + "/" + entry.at("weights").get<std::string>());
      model->eval();
    }
    const Tensor input = load(entry.at("input"));
    const Tensor expected = load(entry.at("output"));
    const double err = relative_error(model->forward(input), expected);
    EXPECT_LE(err, kTolerance);
    const double runtime_err = relative_error(run_in_runtime(*model, input), expected);
    EXPECT_LE(runtime_err, kTolerance) << "in the runtime";
    std::printf("  %-22s max abs error / output scale = %.2e (runtime %.2e)\n",
                entry.at("case").get<std::string>().c_str(), err, runtime_err);
    ++cases;
  }
  EXPECT_GT(cases, 0) << "the manifest has no case for " << model_name;
  EXPECT_EQ(kernels::cpu::onednn_reference_implementations(), std::vector<std::string>{})
      << "oneDNN ran its reference code; kernels on " << kernels::cpu::kernel_isa();
}

TEST(ModelParity, MlpMatchesPyTorch) { check_model("mlp"); }
TEST(ModelParity, Resnet18MatchesTorchvision) { check_model("resnet18"); }
TEST(ModelParity, Resnet50MatchesTorchvision) { check_model("resnet50"); }
TEST(ModelParity, BertEncoderMatchesTransformerEncoder) { check_model("bert"); }
TEST(ModelParity, Gpt2FromAHubLayoutCheckpointMatchesHuggingFaceStructure) { check_model("gpt2"); }

// ---- layers ----

const json& layer_case(const std::string& name) {
  for (const json& entry : manifest().at("layers")) {
    if (entry.at("case") == name) return entry;
  }
  throw std::runtime_error("no layer case " + name + " in the manifest");
}

void load_weights(nn::Module& module, const json& entry) {
  load_safetensors(module, data_dir() + "/" + entry.at("weights").get<std::string>());
}

Tensor input(const json& entry, const std::string& name) {
  return load(entry.at("inputs").at(name));
}

void expect_output(const json& entry, const std::string& name, const Tensor& actual) {
  SCOPED_TRACE(entry.at("case").get<std::string>() + ": " + name);
  EXPECT_LE(relative_error(actual, load(entry.at("outputs").at(name))), kTolerance);
}

TEST(LayerParity, MultiheadAttentionSelfAttentionWithBothMasks) {
  const json& c = layer_case("mha_self_batch_first");
  const json& a = c.at("args");
  nn::MultiheadAttention mha(a.at("embed_dim"), a.at("num_heads"), 0.0, true, a.at("batch_first"));
  load_weights(mha, c);
  mha.eval();
  const Tensor x = input(c, "query");
  const auto out = mha.forward(x, x, x, input(c, "key_padding_mask"), true, input(c, "attn_mask"),
                               c.at("call").at("average_attn_weights"));
  expect_output(c, "output", out.output);
  expect_output(c, "attn_weights", out.attn_weights);
}

TEST(LayerParity, MultiheadAttentionCrossAttentionSequenceFirstWithFloatMask) {
  const json& c = layer_case("mha_cross_seq_first");
  const json& a = c.at("args");
  nn::MultiheadAttention mha(a.at("embed_dim"), a.at("num_heads"));
  load_weights(mha, c);
  mha.eval();
  const auto out = mha.forward(input(c, "query"), input(c, "key"), input(c, "value"), {}, true,
                               input(c, "attn_mask"), c.at("call").at("average_attn_weights"));
  expect_output(c, "output", out.output);
  expect_output(c, "attn_weights", out.attn_weights);
  // Without weights the fused attention kernel runs; it must agree too.
  const auto fused = mha.forward(input(c, "query"), input(c, "key"), input(c, "value"), {}, false,
                                 input(c, "attn_mask"));
  expect_output(c, "output", fused.output);
}

nn::TransformerEncoderLayer encoder_layer(const json& a) {
  nn::TransformerEncoderLayer::Options o;
  o.dim_feedforward = a.at("dim_feedforward");
  o.activation = a.at("activation");
  o.batch_first = a.at("batch_first");
  o.norm_first = a.at("norm_first");
  return nn::TransformerEncoderLayer(a.at("d_model"), a.at("nhead"), o);
}

TEST(LayerParity, TransformerEncoderLayerPostNormWithPaddingMask) {
  const json& c = layer_case("encoder_post_norm_gelu");
  auto layer = encoder_layer(c.at("args"));
  load_weights(layer, c);
  layer.eval();
  expect_output(c, "output",
                layer.forward(input(c, "src"), Tensor(), input(c, "src_key_padding_mask")));
}

TEST(LayerParity, TransformerEncoderLayerPreNormWithCausalMask) {
  const json& c = layer_case("encoder_pre_norm_relu");
  auto layer = encoder_layer(c.at("args"));
  load_weights(layer, c);
  layer.eval();
  expect_output(c, "output", layer.forward(input(c, "src"), input(c, "src_mask")));
}

TEST(LayerParity, BatchNormTrainingUpdatesRunningStatistics) {
  const json& c = layer_case("batchnorm_train");
  nn::BatchNorm2d bn(c.at("args").at("num_features"));
  load_weights(bn, c);
  bn.train();
  expect_output(c, "y1", bn.forward(input(c, "x1")));
  expect_output(c, "y2", bn.forward(input(c, "x2")));
  expect_output(c, "running_mean", bn.running_mean);
  expect_output(c, "running_var", bn.running_var);
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(),
            load(c.at("outputs").at("num_batches_tracked")).item<int64_t>());
}

nn::Conv2d conv_layer(const json& a) {
  nn::Conv2d::Options o;
  o.stride = a.at("stride").get<std::vector<int64_t>>();
  o.padding = a.at("padding").get<std::vector<int64_t>>();
  o.dilation = a.at("dilation").get<std::vector<int64_t>>();
  o.groups = a.at("groups");
  o.bias = a.at("bias");
  return nn::Conv2d(a.at("in_channels"), a.at("out_channels"),
                    a.at("kernel_size").get<std::vector<int64_t>>(), o);
}

TEST(LayerParity, Conv2dWithGroupsStridesAndDilation) {
  for (const char* name : {"conv_groups", "conv_dilated_nobias"}) {
    const json& c = layer_case(name);
    auto conv = conv_layer(c.at("args"));
    load_weights(conv, c);
    expect_output(c, "output", conv.forward(input(c, "input")));
  }
}

TEST(LayerParity, EmbeddingWithPaddingIndex) {
  const json& c = layer_case("embedding_padding");
  const json& a = c.at("args");
  nn::Embedding emb(a.at("num_embeddings"), a.at("embedding_dim"),
                    a.at("padding_idx").get<int64_t>());
  load_weights(emb, c);
  expect_output(c, "output", emb.forward(input(c, "input")));
}

TEST(LayerParity, LayerNormOverTwoDims) {
  const json& c = layer_case("layernorm_2d");
  nn::LayerNorm ln(c.at("args").at("normalized_shape").get<std::vector<int64_t>>());
  load_weights(ln, c);
  expect_output(c, "output", ln.forward(input(c, "input")));
}

// One generation: the prompt through the cache at positions 0..6, then one token per step;
// returns each step's last-token logits [1, vocab].
std::vector<Tensor> generate(const std::function<Tensor(const Tensor&, const Tensor&)>& step,
                             const Tensor& prompt, int64_t steps, std::vector<int64_t>& tokens) {
  std::vector<Tensor> logits;
  const int64_t n = prompt.int_size(1);
  Tensor out = step(prompt, arange(0, n));
  logits.push_back(out.select(1, -1));
  for (int64_t i = 0; i < steps; ++i) {
    tokens.push_back(logits.back().argmax().item<int64_t>());
    out = step(from_vector<int64_t>({tokens.back()}, {1, 1}), from_vector<int64_t>({n + i}, {1}));
    logits.push_back(out.select(1, -1));
  }
  return logits;
}

TEST(ModelParity, Gpt2WithKvCacheGeneratesLikeHuggingFace) {
  const json& g = manifest().at("generation");
  models::Gpt2Config config;
  config.vocab_size = g.at("config").at("vocab_size");
  config.n_positions = g.at("config").at("n_positions");
  config.n_embd = g.at("config").at("n_embd");
  config.n_layer = g.at("config").at("n_layer");
  config.n_head = g.at("config").at("n_head");
  config.cache_size = 64;
  auto model = models::gpt2(config);
  load_safetensors(*model, data_dir() + "/" + g.at("weights").get<std::string>());
  model->eval();
  const Tensor prompt = load(g.at("prompt"));
  const std::vector<int64_t> hf_tokens = load(g.at("tokens")).to_vector<int64_t>();
  const Tensor hf_logits = load(g.at("logits"));
  const auto steps = static_cast<int64_t>(hf_tokens.size());

  // One program for the prompt and every one-token step: the number of new tokens is dynamic
  // from 1, and the caches are buffers the program updates in place.
  const Dim tokens("tokens", 1, config.cache_size);
  ExportOptions options;
  options.dynamic_shapes = {{{1, tokens}}, {{0, tokens}}};
  options.input_names = {"ids", "positions"};
  const ExportedProgram exported = export_program(
      *model,
      [&](const std::vector<Value>& in) {
        return std::vector<Tensor>{model->forward(in[0].to_tensor(), in[1].to_tensor())};
      },
      {prompt, arange(0, prompt.int_size(1))}, options);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("xport_gpt2_kv_" + std::to_string(getpid()) + ".pt2"))
                               .string();
  save(exported, path);
  const runtime::Program rt = runtime::Program::load(path);
  std::filesystem::remove(path);
  EXPECT_EQ(rt.plan_stats({prompt, arange(0, prompt.int_size(1))}).buffers_updated_in_place,
            2 * config.n_layer);

  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&, const Tensor&)>>>
      engines = {
          {"eager", [&](const Tensor& ids, const Tensor& pos) { return model->forward(ids, pos); }},
          {"runtime", [&](const Tensor& ids, const Tensor& pos) { return rt.run({ids, pos})[0]; }}};
  for (const auto& [name, step] : engines) {
    SCOPED_TRACE(name);
    std::vector<int64_t> generated;
    const std::vector<Tensor> logits = generate(step, prompt, steps, generated);
    EXPECT_EQ(generated, hf_tokens);
    double worst = 0;
    for (size_t i = 0; i < logits.size(); ++i) {
      worst = std::max(worst, relative_error(logits[i].reshape({-1}),
                                             hf_logits.select(0, static_cast<int64_t>(i))));
    }
    EXPECT_LE(worst, kTolerance);
    std::printf("  %-8s %lld tokens equal Hugging Face's: %s; worst logits error %.2e\n",
                name.c_str(), static_cast<long long>(steps),
                generated == hf_tokens ? "yes" : "no", worst);
  }
}

}  // namespace
}  // namespace xport
