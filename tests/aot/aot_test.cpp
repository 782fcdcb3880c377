// Ahead-of-time compilation: programs compiled into shared libraries run through
// runtime::Program::load("m.so") and through the C ABI from a C program, and give what the
// runtime gives on the same archive; inputs outside the contract get the runtime's errors.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "aot_paths.h"
#include "runtime/quantized_program.h"
#include "xport/aot/aot.h"
#include "xport/nn/models.h"
#include "xport/nn/module.h"
#include "xport/runtime.h"
#include "xport/serde/archive.h"
#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;

// How runtime::Program calls a compiled model: "C++" when the library is of this build.
std::string entrance(const runtime::Program& compiled, const std::vector<Value>& inputs) {
  const std::string reason = compiled.plan_stats(inputs).unplanned_reason;
  const size_t at = reason.find("called through its ");
  return at == std::string::npos ? reason : reason.substr(at + 19);
}

// `so` loaded to be called through its C ABI (XPORT_MODEL_C_ABI=1), as a host of another
// build calls it.
runtime::Program load_through_c_abi(const std::string& so) {
  setenv("XPORT_MODEL_C_ABI", "1", 1);
  runtime::Program program = runtime::Program::load(so);
  unsetenv("XPORT_MODEL_C_ABI");
  return program;
}

// A directory of its own per test, removed afterwards.
class AotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Precompiled headers in the build tree, not the user's cache.
    setenv("XPORT_AOT_CACHE", (fs::current_path() / "aot-cache").c_str(), 0);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("xport-aot-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Compiles `program` as NAME.so and checks it against the runtime on `inputs`.
  runtime::Program compile_and_compare(const ExportedProgram& program, const std::string& name,
                                       const std::vector<Value>& inputs) {
    const aot::CompileReport report = aot::compile(program, path(name + ".so"));
    EXPECT_TRUE(fs::exists(report.so_path) && fs::exists(report.archive_path) &&
                fs::exists(report.header_path))
        << report.str();
    // The cache (XPORT_AOT_CACHE) holds the headers precompiled with the flags of each compile.
    EXPECT_TRUE(report.precompiled_headers) << report.str();
    runtime::Program compiled = runtime::Program::load(report.so_path);
    const runtime::Program reference = runtime::Program::load(report.archive_path);
    const std::vector<Tensor> want = reference.run_values(inputs);
    const std::vector<Tensor> got = compiled.run_values(inputs);
    EXPECT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
      EXPECT_TRUE(allclose(got[i], want[i], 1e-5, 1e-6)) << name << " output " << i;
    }
    // The library is of this build: the runtime passes its tensors to it directly. Through the
    // C ABI the results are the same.
    EXPECT_EQ(entrance(compiled, inputs), "C++ entrance (this build's types)") << name;
    const runtime::Program c_abi = load_through_c_abi(report.so_path);
    EXPECT_EQ(entrance(c_abi, inputs), "C ABI") << name;
    const std::vector<Tensor> through_c = c_abi.run_values(inputs);
    EXPECT_EQ(through_c.size(), got.size()) << name;
    for (size_t i = 0; i < got.size() && i < through_c.size(); ++i) {
      EXPECT_TRUE(allclose(through_c[i], got[i], 0, 0)) << name << " output " << i;
    }
    return compiled;
  }

  fs::path dir_;
};

Tensor token_ids(int64_t batch, int64_t seq, int64_t vocab) {
  std::vector<int64_t> v(static_cast<size_t>(batch * seq));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>((i * 131 + 7) % vocab);
  return from_vector(v, {batch, seq});
}

// GPT-2 of 2 layers, width 16, 32 positions, a vocabulary of 50.
std::shared_ptr<models::GPT2> tiny_gpt2() {
  models::Gpt2Config config;
  config.vocab_size = 50;
  config.n_positions = 32;
  config.n_embd = 16;
  config.n_layer = 2;
  config.n_head = 2;
  auto gpt2 = models::gpt2(config);
  gpt2->eval();
  return gpt2;
}

TEST_F(AotTest, ReferenceModelsEqualTheRuntime) {
  auto mlp = models::mlp({16, 32, 8});
  mlp->eval();
  const Tensor x = randn({4, 16}, 0);
  compile_and_compare(export_program(*mlp, [&](const Tensor& t) { return mlp->forward(t); }, {x}),
                      "mlp", {x});

  auto resnet = models::resnet18(10);
  resnet->eval();
  const Tensor image = randn({1, 3, 32, 32}, 1);
  compile_and_compare(
      export_program(*resnet, [&](const Tensor& t) { return resnet->forward(t); }, {image}),
      "resnet18", {image});

  models::BertConfig bert_config;
  bert_config.num_layers = 2;
  bert_config.hidden = 64;
  bert_config.heads = 4;
  bert_config.feedforward = 128;
  auto bert = models::bert_encoder(bert_config);
  bert->eval();
  const Tensor tokens = randn({2, 8, 64}, 2);
  compile_and_compare(
      export_program(*bert, [&](const Tensor& t) { return bert->forward(t); }, {tokens}), "bert",
      {tokens});

  auto gpt2 = tiny_gpt2();
  const Tensor ids = token_ids(2, 5, 50);
  compile_and_compare(
      export_program(*gpt2, [&](const Tensor& t) { return gpt2->forward(t); }, {ids}), "gpt2",
      {ids});
}

// XNNPACKQuantizer's blocks (test_support::xnnpack_block_program): the integer convolutions
// with their sums, the NHWC max pool (a kernel the runtime chooses at load, which the library
// calls as a packed step), the table and the uint8 values run as in the runtime.
TEST_F(AotTest, QuantizedBlocksEqualTheRuntime) {
  for (const bool t1_out : {false, true}) {
    const Tensor x = randn({3, 8, 8, 8}, 4);
    compile_and_compare(test_support::xnnpack_block_program(t1_out),
                        t1_out ? "xnnpack_t1" : "xnnpack", {x});
  }
}

// A small program with a buffer the program updates, a view output and a scalar input.
struct Counter : nn::Module {
  Counter() { count = register_buffer("count", zeros({3})); }
  Tensor count;
  std::vector<Tensor> forward(const Tensor& x, double scale) {
    count.add_(x.sum(0));
    const Tensor y = (x * scale).relu();
    return {y, y.transpose(0, 1), count * 2};
  }
};

TEST_F(AotTest, BufferUpdatesPersistAcrossCallsAsInTheRuntime) {
  Counter counter;
  const Tensor x = randn({4, 3}, 3);
  const ExportedProgram p = export_program(
      counter, [&](const Tensor& t, double s) { return counter.forward(t, s); }, {x, 0.5});
  aot::compile(p, path("counter.so"));
  const runtime::Program compiled = runtime::Program::load(path("counter.so"));
  // Another model of the same library, with state of its own, called through its C ABI.
  const runtime::Program c_abi = load_through_c_abi(path("counter.so"));
  const runtime::Program reference = runtime::Program::load(path("counter.pt2"));
  for (int call = 0; call < 3; ++call) {
    const Tensor input = randn({4, 3}, static_cast<uint64_t>(10 + call));
    const std::vector<Tensor> want = reference.run_values({input, 0.5});
    for (const runtime::Program* program : {&compiled, &c_abi}) {
      const std::vector<Tensor> got = program->run_values({input, 0.5});
      ASSERT_EQ(got.size(), 3u);
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_TRUE(allclose(got[i], want[i], 1e-6, 1e-6))
            << entrance(*program, {input, 0.5}) << ", call " << call << " output " << i;
      }
    }
  }
}

// The runtime's message for the same bad call, or "" when it accepts it.
std::string runtime_error(const runtime::Program& program, const std::vector<Value>& inputs) {
  try {
    program.run_values(inputs);
  } catch (const Error& e) {
    return std::string(to_string(e.kind())) + ": " + e.what();
  }
  return "";
}

TEST_F(AotTest, InputsOutsideTheContractGetTheRuntimesErrors) {
  auto mlp = models::mlp({16, 32, 8});
  mlp->eval();
  const ExportedProgram p = export_program(
      *mlp, [&](const Tensor& t) { return mlp->forward(t); }, {randn({4, 16}, 0)});
  aot::compile(p, path("mlp.so"));
  const runtime::Program compiled = runtime::Program::load(path("mlp.so"));
  const runtime::Program reference = runtime::Program::load(path("mlp.pt2"));
  const std::vector<std::vector<Value>> bad = {
      {randn({5, 16}, 0)},                     // a static dim differs
      {randn({4, 16}, 0).to(DType::Float64)},  // dtype
      {randn({4, 16, 1}, 0)},                  // rank
      {},                                      // arity
      {randn({4, 16}, 0), randn({4, 16}, 1)},
  };
  const runtime::Program c_abi = load_through_c_abi(path("mlp.so"));
  for (const std::vector<Value>& inputs : bad) {
    const std::string want = runtime_error(reference, inputs);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(runtime_error(compiled, inputs), want);
    EXPECT_EQ(runtime_error(c_abi, inputs), want);
  }
}

TEST_F(AotTest, OutputsOutliveTheProgramThatMadeThem) {
  auto mlp = models::mlp({16, 8});
  mlp->eval();
  const Tensor x = randn({4, 16}, 0);
  aot::compile(export_program(*mlp, [&](const Tensor& t) { return mlp->forward(t); }, {x}),
               path("mlp.so"));
  Tensor y;
  {
    const runtime::Program compiled = runtime::Program::load(path("mlp.so"));
    y = compiled.run({x}).at(0);
  }  // the library stays loaded while its outputs live
  EXPECT_TRUE(allclose(y, runtime::Program::load(path("mlp.pt2")).run({x}).at(0), 1e-5, 1e-6));
}

TEST_F(AotTest, ManyThreadsShareOneLoadedModel) {
  auto mlp = models::mlp({64, 256, 64});
  mlp->eval();
  const ExportedProgram p = export_program(
      *mlp, [&](const Tensor& t) { return mlp->forward(t); }, {randn({8, 64}, 0)});
  aot::compile(p, path("mlp.so"));
  const runtime::Program compiled =
      runtime::Program::load(path("mlp.so"), runtime::Options{.num_threads = 1});
  const runtime::Program reference = runtime::Program::load(path("mlp.pt2"));
  std::vector<Tensor> inputs, want;
  for (int i = 0; i < 8; ++i) {
    inputs.push_back(randn({8, 64}, static_cast<uint64_t>(i)));
    want.push_back(reference.run({inputs.back()}).at(0));
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 25; ++r) {
        const auto i = static_cast<size_t>((t + r) % 8);
        if (!allclose(compiled.run({inputs[i]}).at(0), want[i], 1e-5, 1e-6)) ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// Programs of symbolic sizes: one library for every shape the contract admits, each run
// planned by the runtime's planner for its symbols' values (kept per tuple of them).
TEST_F(AotTest, DynamicModelsEqualTheRuntimeAtEveryShape) {
  const auto compare_at = [&](const std::string& name, const runtime::Program& compiled,
                              const std::vector<std::vector<Value>>& calls) {
    const runtime::Program reference = runtime::Program::load(path(name + ".pt2"));
    for (int round = 0; round < 2; ++round) {  // the second round reuses each shape's plan
      for (size_t c = 0; c < calls.size(); ++c) {
        const std::vector<Tensor> want = reference.run_values(calls[c]);
        const std::vector<Tensor> got = compiled.run_values(calls[c]);
        ASSERT_EQ(got.size(), want.size()) << name;
        for (size_t i = 0; i < got.size(); ++i) {
          EXPECT_EQ(got[i].int_sizes(), want[i].int_sizes()) << name << " call " << c;
          EXPECT_TRUE(allclose(got[i], want[i], 1e-5, 1e-6)) << name << " call " << c;
        }
      }
    }
  };

  auto mlp = models::mlp({16, 32, 8});
  mlp->eval();
  ExportOptions batch;
  batch.dynamic_shapes = {{{0, Dim("batch", 1, 64)}}};
  compare_at("mlp",
             compile_and_compare(export_program(*mlp,
                                                [&](const Tensor& t) { return mlp->forward(t); },
                                                {randn({4, 16}, 0)}, batch),
                                 "mlp", {randn({4, 16}, 1)}),
             {{randn({1, 16}, 2)}, {randn({64, 16}, 3)}, {randn({7, 16}, 4)}});

  auto resnet = models::resnet18(10);
  resnet->eval();
  ExportOptions image;
  const Dim size("size", 32, 64);
  image.dynamic_shapes = {{{0, Dim("batch", 1, 8)}, {2, size}, {3, size}}};
  compare_at("resnet18",
             compile_and_compare(
                 export_program(*resnet, [&](const Tensor& t) { return resnet->forward(t); },
                                {randn({2, 3, 32, 32}, 5)}, image),
                 "resnet18", {randn({2, 3, 32, 32}, 6)}),
             {{randn({1, 3, 48, 48}, 7)}, {randn({3, 3, 64, 64}, 8)}});

  auto gpt2 = tiny_gpt2();
  ExportOptions tokens;
  tokens.dynamic_shapes = {{{0, Dim("batch", 1, 8)}, {1, Dim("seq", 2, 32)}}};
  const runtime::Program compiled = compile_and_compare(
      export_program(*gpt2, [&](const Tensor& t) { return gpt2->forward(t); },
                     {token_ids(2, 5, 50)}, tokens),
      "gpt2", {token_ids(2, 5, 50)});
  compare_at("gpt2", compiled,
             {{token_ids(1, 2, 50)}, {token_ids(8, 32, 50)}, {token_ids(3, 17, 50)}});
  // Outside the contract: the runtime's error.
  const runtime::Program reference = runtime::Program::load(path("gpt2.pt2"));
  const std::string want = runtime_error(reference, {token_ids(2, 33, 50)});
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(runtime_error(compiled, {token_ids(2, 33, 50)}), want);
}

// With the archive embedded, the library is the one file to deploy: moved alone elsewhere, it
// runs (weights viewed in its read-only data, not copied) and gives what the runtime gives.
TEST_F(AotTest, AnEmbeddedArchiveMakesTheLibraryTheOneFileToDeploy) {
  auto resnet = models::resnet18(10);
  resnet->eval();
  ExportOptions batch;
  batch.dynamic_shapes = {{{0, Dim("batch", 1, 4)}}};
  const ExportedProgram p = export_program(
      *resnet, [&](const Tensor& t) { return resnet->forward(t); }, {randn({2, 3, 32, 32}, 0)},
      batch);
  save(p, path("reference.pt2"));
  fs::create_directories(path("built"));
  aot::Options embed;
  embed.embed_archive = true;
  const aot::CompileReport report = aot::compile(p, path("built/resnet.so"), embed);
  EXPECT_TRUE(report.archive_path.empty());
  EXPECT_FALSE(fs::exists(path("built/resnet.pt2")));
  EXPECT_GT(report.embedded_bytes, 40'000'000);  // resnet18's 11.7M float weights
  EXPECT_GT(report.so_bytes, report.embedded_bytes);
  EXPECT_NE(report.str().find("from the library"), std::string::npos) << report.str();
  fs::create_directories(path("deployed"));
  fs::rename(path("built/resnet.so"), path("deployed/resnet.so"));
  fs::remove_all(path("built"));

  const runtime::Program compiled = runtime::Program::load(path("deployed/resnet.so"));
  EXPECT_EQ(compiled.program().symbols().size(), 1u);
  const runtime::Program reference = runtime::Program::load(path("reference.pt2"));
  for (const int64_t n : {1, 3}) {
    const Tensor x = randn({n, 3, 32, 32}, static_cast<uint64_t>(n));
    EXPECT_TRUE(allclose(compiled.run({x}).at(0), reference.run({x}).at(0), 1e-5, 1e-6)) << n;
  }
  EXPECT_EQ(runtime_error(compiled, {randn({5, 3, 32, 32}, 9)}),
            runtime_error(reference, {randn({5, 3, 32, 32}, 9)}));
}

// Control flow: the op (cond, map, while_loop) runs in the runtime and calls its subgraphs, each
// a generated function (nested ones too). Steps whose sizes only the data decides run in the
// runtime (aot::Shape::run_step); the code around them stays generated, and errors (a failed
// runtime assertion) are the runtime's.
TEST_F(AotTest, ControlFlowAndDataDependentStepsRunAsInTheRuntime) {
  const auto same_as_runtime = [&](const ExportedProgram& program, const std::string& name,
                                   const std::vector<std::vector<Value>>& calls) {
    const aot::CompileReport report = aot::compile(program, path(name + ".so"));
    const runtime::Program compiled = runtime::Program::load(report.so_path);
    const runtime::Program reference = runtime::Program::load(report.archive_path);
    for (size_t c = 0; c < calls.size(); ++c) {
      const std::string error = runtime_error(reference, calls[c]);
      EXPECT_EQ(runtime_error(compiled, calls[c]), error) << name << " call " << c;
      if (!error.empty()) continue;
      const std::vector<Tensor> want = reference.run_values(calls[c]);
      const std::vector<Tensor> got = compiled.run_values(calls[c]);
      EXPECT_EQ(got.size(), want.size()) << name;
      for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        EXPECT_EQ(got[i].int_sizes(), want[i].int_sizes()) << name << " call " << c;
        EXPECT_TRUE(allclose(got[i], want[i], 1e-6, 1e-6)) << name << " call " << c;
      }
    }
    return report;
  };

  const ExportedProgram with_cond = export_program(
      [](const Tensor& x) {
        const Tensor h = x.relu() + 1;
        const std::vector<Tensor> r = cond(
            x.sum() > 0, [](const std::vector<Tensor>& a) { return std::vector{a[0] * 2}; },
            [](const std::vector<Tensor>& a) { return std::vector{a[0] - 1}; }, {h});
        return r[0].exp();
      },
      {randn({3, 4}, 0)}, {.dynamic_shapes = {{{0, Dim("rows", 1, 16)}}}});
  const aot::CompileReport cond_report = same_as_runtime(
      with_cond, "cond", {{full({3, 4}, 1.0)}, {full({5, 4}, -1.0)}, {randn({16, 4}, 1)}});
  EXPECT_EQ(cond_report.control_flow_steps, 1) << cond_report.str();
  EXPECT_EQ(cond_report.subgraph_functions, 2) << cond_report.str();
  EXPECT_EQ(cond_report.runtime_steps, 0) << cond_report.str();

  // A map and a while_loop inside cond's branches: five generated functions.
  const ExportedProgram nested = export_program(
      [](const Tensor& x) {
        const BranchFn each_row = [](const std::vector<Tensor>& a) {
          return map([](const Tensor& row,
                        const std::vector<Tensor>& scale) { return std::vector{row * scale[0]}; },
                     a[0], {a[0].sum(0)});
        };
        const BranchFn doubled_three_times = [](const std::vector<Tensor>& a) {
          return std::vector{while_loop(
              [](const std::vector<Tensor>& c) { return c[1] < 3; },
              [](const std::vector<Tensor>& c) { return std::vector{c[0] * 2 + 1, c[1] + 1}; },
              {a[0], full({}, 0, DType::Int64)})[0]};
        };
        return cond(x.sum() > 0, each_row, doubled_three_times, {x.tanh()})[0] + 1;
      },
      {randn({3, 4}, 0)}, {.dynamic_shapes = {{{0, Dim("rows", 1, 16)}}}});
  const aot::CompileReport nested_report = same_as_runtime(
      nested, "nested", {{full({3, 4}, 1.0)}, {full({5, 4}, -1.0)}, {randn({16, 4}, 2)}});
  EXPECT_EQ(nested_report.control_flow_steps, 3) << nested_report.str();
  EXPECT_EQ(nested_report.subgraph_functions, 5) << nested_report.str();
  EXPECT_EQ(nested_report.runtime_steps, 0) << nested_report.str();

  const TracedFn narrow_by_value = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const SymInt k = in[1].to_tensor().item_int();
    constrain_as_size(k);
    check(k <= x.size(0));
    return std::vector<Tensor>{(x.narrow(0, 0, k) * 2 + 1).sum(1), x.sigmoid()};
  };
  const aot::CompileReport narrow_report = same_as_runtime(
      export_program(narrow_by_value, {randn({6, 2}, 0), full({}, 3, DType::Int64)},
                                 {.dynamic_shapes = {{{0, Dim("n")}}, {}}}),
                  "narrow",
                  {{randn({6, 2}, 1), full({}, 0, DType::Int64)},
                   {randn({9, 2}, 2), full({}, 9, DType::Int64)},
                   {randn({4, 2}, 3), full({}, 5, DType::Int64)}});  // k > n: the assertion
  EXPECT_GT(narrow_report.runtime_steps, 0) << narrow_report.str();

  const TracedFn by_mask = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    return std::vector<Tensor>{nonzero(x), masked_select(x, x.gt(0.0)).exp()};
  };
  const aot::CompileReport mask_report =
      same_as_runtime(export_program(by_mask, {randn({3, 4}, 0)}), "mask",
                      {{randn({3, 4}, 4)}, {full({3, 4}, -1.0)}, {full({3, 4}, 2.0)}});
  EXPECT_GT(mask_report.runtime_steps, 0) << mask_report.str();
}

TEST_F(AotTest, RefusesWhatItCannotCompileNamingItBeforeCompiling) {
  // A program calling custom op `op` on its input.
  const auto calling = [](const std::string& op) {
    return export_program(
        [op](const std::vector<Value>& in) {
          return std::vector<Tensor>{call_op(op, {in[0]}).to_tensor() + 1};
        },
        {randn({3}, 0)});
  };
  // Refused with UnsupportedOp saying `says`, before the compiler runs.
  const auto expect_refused = [&](const ExportedProgram& program, const std::string& name,
                                  const std::string& says) {
    try {
      aot::compile(program, path(name + ".so"));
      ADD_FAILURE() << name << ": a program with a custom op compiled";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::UnsupportedOp) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(path(name + ".so")));
  };
  const auto same_size = [](const std::vector<Value>& a) {
    return Value(empty_like(a[0].to_tensor()));
  };
  // A custom op's kernel is a function object of the process that registered it: nothing a
  // library can call.
  Library("aot_test").define("twice(Tensor x) -> Tensor");
  Library("aot_test")
      .impl("twice", [](const std::vector<Value>& a) { return Value(a[0].to_tensor() * 2); })
      .impl_meta("twice", same_size);
  const ExportedProgram custom = calling("aot_test::twice");
  expect_refused(custom, "custom", "aot_test::twice");
  // One with a decomposition and no kernel too: the plan calls what its decomposition makes
  // (ir::passes::expand_composites), but the library loads the archive, which names the op.
  Library("aot_test")
      .define("thrice(Tensor x) -> Tensor")
      .impl_meta("thrice", same_size)
      .impl_decomposition("thrice",
                          [](const std::vector<Value>& a) { return Value(a[0].to_tensor() * 3); });
  expect_refused(calling("aot_test::thrice"), "thrice", "aot_test::thrice is a custom op");

  try {
    aot::compile(custom, path("model.dylib"));
    FAIL() << "a library not named .so";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  }
}

TEST_F(AotTest, CompilerErrorsAreReportedWithTheCompilersOutput) {
  auto mlp = models::mlp({16, 8});
  mlp->eval();
  const ExportedProgram p = export_program(
      *mlp, [&](const Tensor& t) { return mlp->forward(t); }, {randn({4, 16}, 0)});
  aot::Options options;
  options.flags = {"-fno-such-flag-for-xport"};
  try {
    aot::compile(p, path("m.so"), options);
    FAIL() << "compiled with a flag the compiler does not know";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("-fno-such-flag-for-xport"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(path("m.so")));
  options.flags = {};
  options.cxx = "/nonexistent/c++";
  EXPECT_THROW(aot::compile(p, path("m.so"), options), Error);
}

TEST_F(AotTest, ALibraryRefusesAnArchiveItWasNotCompiledFor) {
  auto small = models::mlp({16, 8});
  auto other = models::mlp({16, 12, 8});
  small->eval();
  other->eval();
  const Tensor x = randn({4, 16}, 0);
  aot::compile(export_program(*small, [&](const Tensor& t) { return small->forward(t); }, {x}),
               path("m.so"));
  save(export_program(*other, [&](const Tensor& t) { return other->forward(t); }, {x}),
       path("m.pt2"));
  try {
    runtime::Program::load(path("m.so"));
    FAIL() << "loaded with another archive";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArchive) << e.what();
    EXPECT_NE(std::string(e.what()).find("compiled"), std::string::npos) << e.what();
  }
  EXPECT_THROW(runtime::Program::load(path("m.pt2")).run({x, x}), Error);

  // The same weights in another program: the runtime prepares other steps than the library's.
  save(export_program(*small, [&](const Tensor& t) { return small->forward(t).sigmoid(); }, {x}),
       path("m.pt2"));
  try {
    runtime::Program::load(path("m.so"));
    FAIL() << "loaded with another program over the same weights";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArchive) << e.what();
    EXPECT_NE(std::string(e.what()).find("other steps"), std::string::npos) << e.what();
  }
}

TEST_F(AotTest, TheLibraryRecordsTheInstructionSetItWasCompiledFor) {
  auto mlp = models::mlp({16, 8});
  mlp->eval();
  const Tensor x = randn({4, 16}, 0);
  const ExportedProgram p =
      export_program(*mlp, [&](const Tensor& t) { return mlp->forward(t); }, {x});
  aot::Options options;
  options.flags = {"-mavx2", "-mfma"};  // every x86-64 machine these tests run on has both
  aot::compile(p, path("avx2.so"), options);
  aot::compile(p, path("baseline.so"));
  const auto isa_of = [](const std::string& so) {
    void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle, nullptr) << dlerror();
    if (handle == nullptr) return std::string();
    using IsaFn = const char* (*)();
    const auto isa = reinterpret_cast<IsaFn>(dlsym(handle, "xport_model_isa"));
    std::string out = isa != nullptr ? isa() : "no xport_model_isa";
    dlclose(handle);
    return out;
  };
  EXPECT_NE(isa_of(path("avx2.so")).find("avx2 fma"), std::string::npos) << isa_of(path("avx2.so"));
  EXPECT_EQ(isa_of(path("baseline.so")), "");
  EXPECT_TRUE(allclose(runtime::Program::load(path("avx2.so")).run({x}).at(0),
                       runtime::Program::load(path("baseline.so")).run({x}).at(0), 1e-6, 1e-6));
}

// The C consumer (tests/aot/c_consumer.c), compiled as C11 against the model's header.
TEST_F(AotTest, ACProgramRunsTheModelFromManyThreads) {
  auto mlp = models::mlp({16, 32, 8});
  mlp->eval();
  const ExportedProgram p = export_program(
      *mlp, [&](const Tensor& t) { return mlp->forward(t); }, {randn({4, 16}, 0)});
  aot::compile(p, path("mlp.so"));
  const std::string consumer = path("consumer");
  const std::string build = std::string("cc -std=c11 -Wall -Wextra -Werror -pedantic ") +
                            XPORT_AOT_SANITIZER_FLAGS + " -I" XPORT_AOT_SOURCE_INCLUDE " -I" +
                            dir_.string() + " -DMODEL_HEADER='\"mlp.h\"' -DMODEL=mlp " +
                            XPORT_TESTS_DIR "/aot/c_consumer.c " + path("mlp.so") +
                            " -Wl,-rpath," + dir_.string() + " -lpthread -lm -o " + consumer +
                            " > " + path("cc.log") + " 2>&1";
  ASSERT_EQ(std::system(build.c_str()), 0) << build << "\n"
                                           << std::ifstream(path("cc.log")).rdbuf();
  const std::string run = consumer + " " + path("out.bin") + " > " + path("run.log") + " 2>&1";
  ASSERT_EQ(std::system(run.c_str()), 0) << std::ifstream(path("run.log")).rdbuf();
  // The consumer's input: sin(i) per element.
  std::vector<float> values(64);
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<float>(i));
  const Tensor want =
      runtime::Program::load(path("mlp.pt2")).run({from_vector(values, {4, 16})}).at(0);
  std::ifstream in(path("out.bin"), std::ios::binary);
  std::vector<float> got(32);
  in.read(reinterpret_cast<char*>(got.data()), 32 * sizeof(float));
  ASSERT_EQ(in.gcount(), static_cast<std::streamsize>(32 * sizeof(float)));
  EXPECT_TRUE(allclose(from_vector(got, {4, 8}), want, 1e-5, 1e-6));
}

}  // namespace
}  // namespace xport
