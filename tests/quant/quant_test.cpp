// quant::prepare / convert / to_bf16 on the reference MLP and a small CNN: the graphs they give
// (PT2E's ops, observers gone after convert), results near the float program's, and the same
// results after save and load and in the runtime (whose fusion runs the layers on integers).
#include <gtest/gtest.h>

#include <string>

#include "expect_error.h"
#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

ExportedProgram mlp_program() {
  auto m = models::mlp({64, 128, 32});
  m->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 1, 64)}}};
  return export_program(*m, [&](const Tensor& x) { return m->forward(x); },
                        {randn({4, 64}, 0)}, options);
}

// conv(3 -> 8, 3x3) -> relu -> conv(8 -> 16, 3x3, stride 2) -> flatten -> linear(16*4*4 -> 10)
struct SmallCnn : nn::Module {
  std::shared_ptr<nn::Conv2d> conv1 = register_module(
      "conv1", std::make_shared<nn::Conv2d>(3, 8, std::vector<int64_t>{3, 3},
                                            nn::Conv2d::Options{.padding = {1, 1}}));
  std::shared_ptr<nn::Conv2d> conv2 = register_module(
      "conv2", std::make_shared<nn::Conv2d>(
                   8, 16, std::vector<int64_t>{3, 3},
                   nn::Conv2d::Options{.stride = {2, 2}, .padding = {1, 1}}));
  std::shared_ptr<nn::Linear> fc =
      register_module("fc", std::make_shared<nn::Linear>(16 * 4 * 4, 10));
  Tensor forward(const Tensor& x) override {
    const Tensor h = relu(conv2->forward(relu(conv1->forward(x))));
    return fc->forward(h.flatten(1));
  }
};

ExportedProgram cnn_program() {
  auto m = std::make_shared<SmallCnn>();
  m->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 1, 32)}}};
  return export_program(*m, [m](const Tensor& x) { return m->forward(x); },
                        {randn({2, 3, 8, 8}, 1)}, options);
}

int count(const ExportedProgram& p, const std::string& op) {
  return static_cast<int>(p.graph().find_nodes(op).size());
}

double relative_error(const Tensor& got, const Tensor& want) {
  return (got - want).abs().max().item<float>() / want.abs().max().item<float>();
}

Tensor run1(const ExportedProgram& p, const Tensor& x) { return p.run({x}).at(0); }

// A copy of `p` (saved and loaded), for a runtime program to own.
ExportedProgram load_copy(const ExportedProgram& p) {
  const test_support::TempFile file("copy");
  save(p, file.path());
  return load(file.path());
}

// Saved, loaded back and run by the runtime (with its fusion), the program gives what it gives.
void expect_same_everywhere(const ExportedProgram& p, const Tensor& x, double tolerance) {
  const Tensor want = run1(p, x);
  const test_support::TempFile file("quantized");
  save(p, file.path());
  const ExportedProgram loaded = load(file.path());
  EXPECT_TRUE(allclose(run1(loaded, x), want, 0, 0));
  const Tensor fused = runtime::Program::load(file.path()).run({x}).at(0);
  EXPECT_LT(relative_error(fused, want), tolerance);
}

TEST(Quantize, StaticInt8ObservesCalibratesAndConvertsToPt2eOps) {
  const ExportedProgram program = mlp_program();
  const ExportedProgram prepared = quant::prepare(program);
  EXPECT_EQ(count(prepared, "aten::amin"), 2);
  EXPECT_EQ(count(prepared, "quantized_decomposed::dequantize_per_channel"), 2);
  EXPECT_EQ(prepared.state().count("observers.0.min"), 1u);
  EXPECT_EQ(prepared.state().count("layers.0.weight"), 0u);  // now layers.0.weight_int8
  EXPECT_EQ(prepared.state().at("layers.0.weight_int8").dtype(), DType::Int8);
  for (uint64_t seed = 10; seed < 14; ++seed) prepared.run({randn({16, 64}, seed)});
  EXPECT_LT(prepared.state().at("observers.0.min").item<float>(), -1.0f);

  const ExportedProgram converted = quant::convert(prepared);
  EXPECT_EQ(count(converted, "aten::amin"), 0);
  EXPECT_EQ(count(converted, "quantized_decomposed::quantize_per_tensor"), 2);
  EXPECT_EQ(count(converted, "quantized_decomposed::dequantize_per_tensor"), 2);
  EXPECT_EQ(converted.state().count("observers.0.min"), 0u);
  for (const OutputSpec& o : converted.signature().outputs)
    EXPECT_EQ(o.kind, OutputSpec::Kind::UserOutput);

  const Tensor x = randn({9, 64}, 20);
  EXPECT_LT(relative_error(run1(converted, x), run1(program, x)), 0.05);
  expect_same_everywhere(converted, x, 0.02);
  const runtime::Program fused = runtime::Program::from_exported(load_copy(converted));
  EXPECT_NE(fused.plan_stats({x}).fusion.find("2 matrix products on int8 weights"),
            std::string::npos)
      << fused.plan_stats({x}).fusion;
}

TEST(Quantize, ConvertRefusesAnObserverThatSawNothing) {
  const ExportedProgram prepared = quant::prepare(mlp_program());
  test_support::expect_error([&] { quant::convert(prepared); }, ErrorKind::InvalidInput,
                             {"observer observers.0 (the input of %addmm at quant_test.cpp:",
                              "saw no values",
                              "run the prepared program (ExportedProgram::run) on calibration "
                              "inputs"});
}

TEST(Quantize, DynamicInt8QuantizesEachRunsActivations) {
  const ExportedProgram program = cnn_program();
  const ExportedProgram converted =
      quant::convert(quant::prepare(program, {.scheme = quant::Scheme::DynamicInt8}));
  // conv1, conv2 and fc, each reading its own activation.
  EXPECT_EQ(count(converted, "quantized_decomposed::choose_qparams.tensor"), 3);
  EXPECT_EQ(count(converted, "quantized_decomposed::dequantize_per_channel"), 3);
  EXPECT_EQ(converted.signature().inputs.size(), 3 * 4 + 1);  // int8, scales, zero points, bias
  const Tensor x = randn({5, 3, 8, 8}, 30);
  EXPECT_LT(relative_error(run1(converted, x), run1(program, x)), 0.05);
  expect_same_everywhere(converted, x, 0.02);
}

TEST(Quantize, WeightOnlySchemesKeepActivationsFloat) {
  const ExportedProgram program = mlp_program();
  const Tensor x = randn({3, 64}, 40);
  const ExportedProgram int8 = quant::prepare(program, {.scheme = quant::Scheme::WeightOnlyInt8});
  EXPECT_EQ(count(int8, "quantized_decomposed::quantize_per_tensor"), 0);
  EXPECT_EQ(count(int8, "quantized_decomposed::dequantize_per_channel"), 2);
  EXPECT_LT(relative_error(run1(int8, x), run1(program, x)), 0.02);
  const ExportedProgram int4 =
      quant::prepare(program, {.scheme = quant::Scheme::WeightOnlyInt4, .group_size = 32});
  EXPECT_EQ(count(int4, "quantized_decomposed::dequantize_per_channel_group"), 2);
  const Tensor q = int4.state().at("layers.0.weight_int4");
  EXPECT_EQ(q.dtype(), DType::Int8);
  EXPECT_GE(min(q).item<int64_t>(), -8);
  EXPECT_LE(max(q).item<int64_t>(), 7);
  EXPECT_EQ(int4.state().at("layers.0.weight_scales").int_sizes(),
            (std::vector<int64_t>{128, 2}));
  EXPECT_LT(relative_error(run1(int4, x), run1(program, x)), 0.15);
  // convert has nothing to do for schemes without observers.
  EXPECT_TRUE(allclose(run1(quant::convert(int4), x), run1(int4, x), 0, 0));
  expect_same_everywhere(int4, x, 1e-5);
  expect_same_everywhere(int8, x, 1e-5);
  for (const ExportedProgram* p : {&int8, &int4}) {
    const runtime::Program fused = runtime::Program::from_exported(load_copy(*p));
    EXPECT_NE(fused.plan_stats({x}).fusion.find("2 matrix products of float inputs by integer "
                                                "weights"),
              std::string::npos)
        << fused.plan_stats({x}).fusion;
  }
  test_support::expect_error(
      [&] {
        quant::prepare(program, {.scheme = quant::Scheme::WeightOnlyInt4, .group_size = 48});
      },
      ErrorKind::InvalidInput,
      {"int4 groups of 48 input features do not divide layers.0.weight's 64",
       "choose a group_size that divides it"});
}

// GPT-2 with a KV cache: Conv1D weights ([in, out], read untransposed) and the head tied to the
// token embedding (which keeps its float weights) are quantized; the caches stay buffers the
// program updates.
TEST(Quantize, WeightOnlyGpt2WithAKvCacheQuantizesEveryProjectionAndTheHead) {
  models::Gpt2Config config;
  config.n_layer = 2;
  config.n_embd = 64;
  config.n_head = 4;
  config.vocab_size = 1000;
  config.cache_size = 16;
  auto m = models::gpt2(config);
  m->eval();
  ExportOptions options;
  const Dim tokens("tokens", 1, config.cache_size);
  options.dynamic_shapes = {{{1, tokens}}, {{0, tokens}}};
  auto step = [m](const std::vector<Value>& in) {
    return std::vector<Tensor>{m->forward(in[0].to_tensor(), in[1].to_tensor())};
  };
  const Tensor ids = from_vector<int64_t>({5, 17, 300, 42}, {1, 4});
  const Tensor positions = arange(0, 4, 1, DType::Int64);
  const ExportedProgram program = export_program(*m, step, {ids, positions}, options);
  for (const quant::Scheme scheme :
       {quant::Scheme::WeightOnlyInt8, quant::Scheme::WeightOnlyInt4}) {
    const ExportedProgram q = quant::prepare(program, {.scheme = scheme, .group_size = 32});
    const std::string dequantize = scheme == quant::Scheme::WeightOnlyInt4
                                       ? "quantized_decomposed::dequantize_per_channel_group"
                                       : "quantized_decomposed::dequantize_per_channel";
    EXPECT_EQ(count(q, dequantize), 4 * config.n_layer + 1) << q.graph().to_string();
    EXPECT_EQ(q.state().count("transformer.wte.weight"), 1u);  // the embedding reads it
    const Tensor want = program.run({ids, positions}).at(0);
    const Tensor got = q.run({ids, positions}).at(0);
    EXPECT_LT(relative_error(got, want), scheme == quant::Scheme::WeightOnlyInt4 ? 0.2 : 0.03);
  }
}

TEST(Quantize, ToBf16StoresWeightsInHalfTheBytes) {
  const ExportedProgram program = cnn_program();
  const ExportedProgram half = quant::to_bf16(program, quant::Bf16Compute::Float32);
  // Matrices and kernels in bfloat16; biases stay float32.
  for (const auto& [name, value] : half.state()) {
    EXPECT_EQ(value.dtype(), value.dim() >= 2 ? DType::BFloat16 : DType::Float32) << name;
  }
  // The float program with those weights rounded to bfloat16 gives the same results.
  nn::NamedTensors rounded;
  for (const auto& [name, value] : program.state()) {
    rounded.emplace_back(name, value.dim() >= 2 ? value.to(DType::BFloat16).to(DType::Float32)
                                                : value);
  }
  const Tensor x = randn({2, 3, 8, 8}, 50);
  auto m = std::make_shared<SmallCnn>();
  m->load_state_dict(rounded);
  m->eval();
  EXPECT_LT(relative_error(run1(half, x), m->forward(x)), 1e-5);
  expect_same_everywhere(half, x, 1e-5);
  // The runtime multiplies by the bfloat16 weights as they are (fc; the convolutions widen).
  const runtime::Program fused = runtime::Program::from_exported(load_copy(half));
  EXPECT_NE(fused.plan_stats({x}).fusion.find("1 matrix products and gathers on bfloat16 weights"),
            std::string::npos)
      << fused.plan_stats({x}).fusion;
}

// Bf16Compute::BFloat16 (the default): the linear layer as torch.autocast(bfloat16) runs it,
// its input and bias rounded to bfloat16 and its result widened back; the rest in float32.
TEST(Quantize, ToBf16ComputesLinearLayersAsAutocastDoes) {
  const ExportedProgram program = cnn_program();
  const ExportedProgram half = quant::to_bf16(program);
  const ExportedProgram storage = quant::to_bf16(program, quant::Bf16Compute::Float32);
  for (const auto& [name, value] : half.state()) {
    EXPECT_EQ(value.dtype(), storage.state().at(name).dtype()) << name;
  }
  // fc's product reads its weight as stored: one bfloat16 result (its input, bias and result
  // converted around it), where the float32 program has none.
  const auto bf16_results = [](const ExportedProgram& p) {
    int n = 0;
    for (const char* op : {"aten::linear", "aten::addmm", "aten::mm", "aten::matmul"}) {
      for (const ir::Node* node : p.graph().find_nodes(op)) {
        n += node->outputs()[0].dtype == DType::BFloat16 ? 1 : 0;
      }
    }
    return n;
  };
  EXPECT_EQ(bf16_results(half), 1) << half.graph().to_string();
  EXPECT_EQ(bf16_results(storage), 0);
  // The activations' rounding shows (about 2^-9 of the values), and stays within bfloat16's.
  const Tensor x = randn({2, 3, 8, 8}, 51);
  const double apart = relative_error(run1(half, x), run1(storage, x));
  EXPECT_GT(apart, 1e-5);
  EXPECT_LT(apart, 2e-2);
  // The runtime's bf16_linear rounds as the ops do (one bfloat16 step apart at most, where
  // the sums' order puts a result on the other side of a rounding boundary).
  expect_same_everywhere(half, x, 1e-2);
  const runtime::Program fused = runtime::Program::from_exported(load_copy(half));
  EXPECT_NE(fused.plan_stats({x}).fusion.find("1 matrix products and gathers on bfloat16 weights"),
            std::string::npos)
      << fused.plan_stats({x}).fusion;
}

TEST(Quantize, SchemesHaveTheCommandLinesNames) {
  for (quant::Scheme s : {quant::Scheme::StaticInt8, quant::Scheme::DynamicInt8,
                          quant::Scheme::WeightOnlyInt8, quant::Scheme::WeightOnlyInt4}) {
    EXPECT_EQ(quant::scheme_from_string(quant::to_string(s)), s);
  }
  test_support::expect_error([] { quant::scheme_from_string("int8"); }, ErrorKind::InvalidInput,
                             {"no scheme 'int8'",
                              "static-int8, dynamic-int8, int8-weight and int4-weight"});
}

}  // namespace
}  // namespace xport
