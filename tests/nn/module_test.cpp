#include "xport/nn/module.h"

#include <gtest/gtest.h>

#include "xport/nn/layers.h"
#include "xport/nn/models.h"
#include "xport/xport.h"

namespace xport::nn {
namespace {

std::vector<std::string> names(const NamedTensors& list) {
  std::vector<std::string> out;
  for (const auto& [name, t] : list) out.push_back(name);
  return out;
}

// A small two-level model with a buffer of each kind.
class Net : public Module {
 public:
  Net() : Module("Net") {
    fc1 = register_module("fc1", std::make_shared<Linear>(4, 3));
    body = register_module("body", std::make_shared<Sequential>());
    body->push_back(std::make_shared<ReLU>());
    body->push_back(std::make_shared<Linear>(3, 2, false));
    scale = register_parameter("scale", ones({2}));
    steps = register_buffer("steps", zeros({}, DType::Int64));
    cache = register_buffer("cache", zeros({2}), /*persistent=*/false);
  }
  Tensor forward(const Tensor& x) override {
    ModuleScope scope(*this);
    return body->forward(fc1->forward(x)) * scale;
  }
  std::shared_ptr<Linear> fc1;
  std::shared_ptr<Sequential> body;
  Tensor scale, steps, cache;
};

TEST(Module, NamesParametersAndBuffersByDottedPathInRegistrationOrder) {
  Net net;
  EXPECT_EQ(names(net.named_parameters()),
            (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "body.1.weight"}));
  EXPECT_EQ(names(net.named_buffers()), (std::vector<std::string>{"steps", "cache"}));
  // The state dict has parameters then persistent buffers of each module, then its children.
  EXPECT_EQ(names(net.state_dict()), (std::vector<std::string>{"scale", "steps", "fc1.weight",
                                                               "fc1.bias", "body.1.weight"}));
  std::vector<std::string> modules;
  for (const auto& [path, m] : net.named_modules()) modules.push_back(path + ":" + m->type_name());
  EXPECT_EQ(modules, (std::vector<std::string>{":Net", "fc1:Linear", "body:Sequential",
                                               "body.0:ReLU", "body.1:Linear"}));
}

TEST(Module, RefusesDuplicateAndDottedNames) {
  Net net;
  EXPECT_THROW(net.register_parameter("scale", ones({1})), Error);
  EXPECT_THROW(net.register_buffer("fc1", ones({1})), Error);
  EXPECT_THROW(net.register_parameter("a.b", ones({1})), Error);
  EXPECT_THROW(net.register_module("", std::make_shared<ReLU>()), Error);
}

TEST(Module, LoadStateDictCopiesIntoTheExistingTensors) {
  Net a, b;
  const Tensor weight_handle = b.fc1->weight;
  b.load_state_dict(a.state_dict());
  for (const auto& [name, t] : a.state_dict()) {
    SCOPED_TRACE(name);
    const auto other = b.state_dict();
    const auto it =
        std::find_if(other.begin(), other.end(), [&](const auto& e) { return e.first == name; });
    ASSERT_NE(it, other.end());
    EXPECT_TRUE(allclose(it->second, t, 0, 0));
  }
  EXPECT_TRUE(weight_handle.is_same(b.fc1->weight));
  EXPECT_TRUE(allclose(weight_handle, a.fc1->weight, 0, 0));
}

TEST(Module, StrictLoadListsMissingUnexpectedAndMisshapedNames) {
  Net net;
  NamedTensors state = net.state_dict();
  state.erase(state.begin() + 2);               // fc1.weight missing
  state.emplace_back("fc9.weight", ones({1}));  // unexpected
  state[0].second = ones({5});                  // scale mis-shaped
  try {
    net.load_state_dict(state);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("missing: fc1.weight"), std::string::npos) << msg;
    EXPECT_NE(msg.find("unexpected: fc9.weight"), std::string::npos) << msg;
    EXPECT_NE(msg.find("shape mismatch: scale (checkpoint [5], model [2])"), std::string::npos)
        << msg;
  }
  // Not strict: the names that match load, the rest are left alone.
  const Tensor before = net.fc1->weight.clone();
  state[1].second = full({}, 7, DType::Int64);
  net.load_state_dict(state, /*strict=*/false);
  EXPECT_EQ(net.steps.item<int64_t>(), 7);
  EXPECT_TRUE(allclose(net.fc1->weight, before, 0, 0));
}

TEST(Module, LoadConvertsTheCheckpointDtype) {
  Linear fc(2, 2);
  fc.load_state_dict(
      {{"weight", ones({2, 2}, DType::Float64)}, {"bias", zeros({2}, DType::Float16)}});
  EXPECT_EQ(fc.weight.dtype(), DType::Float32);
  EXPECT_TRUE(allclose(fc.weight, ones({2, 2}), 0, 0));
}

TEST(Module, TrainAndEvalReachEverySubmodule) {
  Net net;
  EXPECT_TRUE(net.is_training());
  net.eval();
  for (const auto& [path, m] : net.named_modules()) EXPECT_FALSE(m->is_training()) << path;
  net.train();
  for (const auto& [path, m] : net.named_modules()) EXPECT_TRUE(m->is_training()) << path;
}

TEST(Module, ToConvertsFloatingTensorsInPlaceAndKeepsHandles) {
  Net net;
  const Tensor x = randn({3, 4}, 1);
  const Tensor expected = net.forward(x).to(DType::Float64);
  const Tensor handle = net.fc1->weight;
  net.to(DType::Float64);
  EXPECT_EQ(handle.dtype(), DType::Float64);
  EXPECT_EQ(net.steps.dtype(), DType::Int64);  // integer buffers stay
  EXPECT_TRUE(allclose(net.forward(x.to(DType::Float64)), expected, 1e-5, 1e-6));
}

TEST(Module, ForwardRecordsTheModulePathItRunsIn) {
  // A layer that remembers the path current while it ran.
  class Probe : public Module {
   public:
    Probe() : Module("Probe") {}
    Tensor forward(const Tensor& x) override {
      ModuleScope scope(*this);
      seen = current_module_path();
      depth = module_call_stack().size();
      return x;
    }
    std::string seen;
    size_t depth = 0;
  };
  Sequential outer;
  auto inner = outer.push_back(std::make_shared<Sequential>());
  inner->push_back(std::make_shared<ReLU>());
  auto probe = inner->push_back(std::make_shared<Probe>());
  outer.forward(ones({2}));
  EXPECT_EQ(probe->seen, "0.1");
  EXPECT_EQ(probe->depth, 3u);
  EXPECT_TRUE(module_call_stack().empty());
  EXPECT_EQ(current_module_path(), "");
}

TEST(Module, ModuleScopeUnwindsOnErrors) {
  Linear fc(4, 3);
  EXPECT_THROW(fc.forward(ones({2, 5})), Error);
  EXPECT_TRUE(module_call_stack().empty());
}

TEST(Containers, ModuleListAndModuleDictIndexAndName) {
  ModuleList list;
  list.push_back(std::make_shared<Linear>(2, 2));
  list.push_back(std::make_shared<ReLU>());
  EXPECT_EQ(list.size(), 2u);
  EXPECT_NE(list.at<Linear>(0), nullptr);
  EXPECT_THROW(list.at<Linear>(1), Error);
  EXPECT_THROW(list[2], Error);
  EXPECT_THROW(list.forward(ones({2})), Error);

  ModuleDict dict;
  dict.insert("proj", std::make_shared<Linear>(2, 3));
  dict.insert("act", std::make_shared<GELU>("tanh"));
  EXPECT_TRUE(dict.contains("act"));
  EXPECT_EQ(dict["proj"]->type_name(), "Linear");
  EXPECT_EQ(names(dict.state_dict()), (std::vector<std::string>{"proj.weight", "proj.bias"}));
  try {
    dict["nope"];
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("keys are: proj, act"), std::string::npos) << e.what();
  }
}

TEST(Layers, DropoutDropsOnlyInTrainingMode) {
  manual_seed(42);
  Dropout drop(0.25);
  const Tensor x = ones({1000});
  drop.eval();
  EXPECT_TRUE(allclose(drop.forward(x), x, 0, 0));
  drop.train();
  const Tensor y = drop.forward(x);
  const double kept = y.ne(zeros({1000})).to(DType::Float32).sum().item<double>();
  EXPECT_NEAR(kept, 750, 60);
  // Survivors are scaled by 1 / (1 - p).
  EXPECT_NEAR(y.max().item<double>(), 1 / 0.75, 1e-6);
  // The generator advances: the next call draws another mask; the seed replays them.
  EXPECT_FALSE(allclose(drop.forward(x), y, 0, 0));
  manual_seed(42);
  EXPECT_TRUE(allclose(drop.forward(x), y, 0, 0));
}

TEST(Layers, BatchNormRejectsASingleValuePerChannelInTraining) {
  BatchNorm2d bn(3);
  EXPECT_THROW(bn.forward(ones({1, 3, 1, 1})), Error);
  bn.eval();
  EXPECT_NO_THROW(bn.forward(ones({1, 3, 1, 1})));
  EXPECT_THROW(bn.forward(ones({3, 4, 4})), Error);
}

TEST(Layers, ConstructorsRefuseBadArguments) {
  EXPECT_THROW(Linear(0, 3), Error);
  EXPECT_THROW(Conv2d(3, 4, {3}, {.groups = 2}), Error);
  EXPECT_THROW(MultiheadAttention(10, 3), Error);
  EXPECT_THROW(Embedding(4, 2, 4), Error);
  EXPECT_THROW(Dropout(1.5), Error);
  TransformerEncoderLayer::Options options;
  options.activation = "tanh";
  EXPECT_THROW(TransformerEncoderLayer(8, 2, options), Error);
}

TEST(Models, ReferenceModelsHaveTheirPyTorchParameterCounts) {
  auto count = [](const Module& m) {
    int64_t n = 0;
    for (const auto& [name, t] : m.named_parameters()) n += t.int_numel();
    return n;
  };
  // torchvision's and Hugging Face's published counts.
  EXPECT_EQ(count(*models::resnet18()), 11689512);
  EXPECT_EQ(count(*models::resnet50()), 25557032);
  EXPECT_EQ(count(*models::gpt2()), 124439808);
  EXPECT_EQ(count(*models::bert_encoder()), 12 * 7087872);
  EXPECT_EQ(count(*models::mlp({1024, 4096, 4096, 1024})), 25175040);
}

TEST(Models, Gpt2TiesTheOutputProjectionToTheTokenEmbedding) {
  models::Gpt2Config config;
  config.vocab_size = 50;
  config.n_positions = 16;
  config.n_embd = 8;
  config.n_layer = 2;
  config.n_head = 2;
  auto model = models::gpt2(config);
  const NamedTensors state = model->state_dict();
  EXPECT_EQ(state.front().first, "transformer.wte.weight");
  EXPECT_EQ(state.back().first, "lm_head.weight");
  EXPECT_TRUE(state.front().second.is_same(state.back().second));
  // named_parameters lists the tied tensor once.
  EXPECT_EQ(model->named_parameters().size(), state.size() - 1);

  // The Hub layout: no prefix, no lm_head.weight, extra mask buffers.
  NamedTensors hub;
  for (const auto& [name, t] : state) {
    if (name == "lm_head.weight") continue;
    hub.emplace_back(name.substr(std::string("transformer.").size()), t.clone() + 1);
  }
  hub.emplace_back("h.0.attn.bias", ones({1, 1, 16, 16}));
  hub.emplace_back("h.1.attn.masked_bias", full({}, -1e4));
  auto loaded = models::gpt2(config);
  loaded->load_state_dict(hub);
  EXPECT_TRUE(allclose(loaded->state_dict().back().second, state.front().second + 1, 0, 0));
  model->eval();
  loaded->eval();
  const Tensor ids = from_vector<int64_t>({1, 5, 7, 49}, {1, 4});
  EXPECT_EQ(loaded->forward(ids).int_sizes(), (std::vector<int64_t>{1, 4, 50}));
  EXPECT_THROW(loaded->forward(from_vector<int64_t>(std::vector<int64_t>(17, 0), {1, 17})), Error);
}

}  // namespace
}  // namespace xport::nn
