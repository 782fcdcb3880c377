// In-place updates of buffers and user inputs: captured functionally, listed in the signature as
// BufferMutation / UserInputMutation outputs, and written back by ExportedProgram::run, the
// runtime and a program loaded from its archive exactly as the eager calls would.
#include <gtest/gtest.h>

#include <thread>

#include "expect_error.h"
#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::expect_error;
using test_support::TempFile;
using Tensors = std::vector<Tensor>;

bool same(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-6) {
  return a.dtype() == b.dtype() && a.int_sizes() == b.int_sizes() && allclose(a, b, rtol, atol);
}

// Counts calls and accumulates the column sums of what it saw.
class Accumulator : public nn::Module {
 public:
  Accumulator() : nn::Module("Accumulator") {
    count = register_buffer("count", zeros({}, DType::Int64));
    total = register_buffer("total", zeros({3}));
    scale = register_parameter("scale", full({3}, 0.5));
  }
  Tensor forward(const Tensor& x) override {
    nn::ModuleScope scope(*this);
    count.add_(1);
    total.add_(x.sum(0));
    return x * scale + total;
  }
  Tensor count, total, scale;
};

TracedFn forward_of(nn::Module& m) {
  return [&m](const std::vector<Value>& in) { return Tensors{m.forward(in[0].to_tensor())}; };
}

// Runs `inputs` in sequence through the eager module and through `run`, comparing the outputs
// and, after each call, every buffer of `eager` with `state` (what the program holds).
void expect_same_sequence(nn::Module& eager, const std::function<Tensors(const Tensor&)>& run,
                          const std::function<Tensor(const std::string&)>& state,
                          const Tensors& inputs, const std::string& what, double rtol = 1e-5,
                          double atol = 1e-6) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor want = eager.forward(inputs[i]);
    const Tensors got = run(inputs[i]);
    ASSERT_EQ(got.size(), 1u) << what;
    EXPECT_TRUE(same(got[0], want, rtol, atol)) << what << ", call " << i;
    for (const auto& [name, buffer] : eager.named_buffers()) {
      EXPECT_TRUE(same(state(name), buffer, rtol, atol))
          << what << ", call " << i << ": buffer " << name << " is " << Value(state(name)).str()
          << ", eager has " << Value(buffer).str();
    }
  }
}

TEST(Mutation, BufferUpdatesBecomeBufferMutationOutputsAppliedByEveryRunner) {
  Accumulator traced;
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch")}}};
  const ExportedProgram p = export_program(traced, forward_of(traced), {randn({4, 3}, 0)}, options);
  const std::string text = p.to_string();
  EXPECT_NE(text.find(": buffer mutation count"), std::string::npos) << text;
  EXPECT_NE(text.find(": buffer mutation total"), std::string::npos) << text;
  EXPECT_NE(text.find(": user output"), std::string::npos) << text;
  // Tracing read the buffers but left them alone; the graph is functional.
  EXPECT_EQ(traced.count.item<int64_t>(), 0);
  for (const auto& node : p.graph().nodes()) {
    if (node->kind() == ir::NodeKind::Call) {
      EXPECT_FALSE(node->op()->parsed.is_mutating()) << node->op()->qualified_name;
    }
  }
  // Mutation outputs come first, in input order, as PyTorch orders them.
  ASSERT_EQ(p.signature().outputs.size(), 3u);
  EXPECT_EQ(p.signature().outputs[0].target, "count");
  EXPECT_EQ(p.signature().outputs[1].target, "total");

  const Tensors inputs = {randn({4, 3}, 1), randn({2, 3}, 2), randn({7, 3}, 3)};
  Accumulator eager;
  expect_same_sequence(
      eager, [&](const Tensor& x) { return p.run({x}); },
      [&](const std::string& name) { return p.state().at(name); }, inputs, "ExportedProgram::run");

  // The archive keeps the state as it was when saved; the runtime and the loaded program then
  // go on from there.
  Accumulator fresh;
  TempFile file("mutation");
  save(export_program(fresh, forward_of(fresh), {randn({4, 3}, 0)}, options), file.path());
  const ExportedProgram loaded = load(file.path());
  EXPECT_EQ(loaded.signature().str(), p.signature().str());
  Accumulator eager2;
  expect_same_sequence(
      eager2, [&](const Tensor& x) { return loaded.run({x}); },
      [&](const std::string& name) { return loaded.state().at(name); }, inputs, "loaded archive");
  const runtime::Program rt = runtime::Program::load(file.path());
  EXPECT_EQ(rt.plan_stats({inputs[0]}).buffers_updated_in_place, 2);
  Accumulator eager3;
  expect_same_sequence(
      eager3, [&](const Tensor& x) { return rt.run({x}); },
      [&](const std::string& name) { return rt.program().state().at(name); }, inputs, "runtime");
  // The decomposed program updates the same buffers.
  Accumulator fresh2, eager4;
  const ExportedProgram core =
      export_program(fresh2, forward_of(fresh2), {randn({4, 3}, 0)}, options).run_decompositions();
  EXPECT_EQ(core.signature().outputs[0].kind, OutputSpec::Kind::BufferMutation);
  expect_same_sequence(
      eager4, [&](const Tensor& x) { return core.run({x}); },
      [&](const std::string& name) { return core.state().at(name); }, inputs,
      "run_decompositions");
}

TEST(Mutation, UserInputUpdatesAreWrittenToTheCallersTensors) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    Tensor x = in[0].to_tensor();
    Tensor y = in[1].to_tensor();
    y.mul_(2.0);
    x.add_(y);
    return Tensors{x * y};
  };
  ExportOptions options;
  const Dim n("n");
  options.dynamic_shapes = {{{0, n}}, {{0, n}}};
  const ExportedProgram p = export_program(fn, {randn({5}, 0), randn({5}, 1)}, options);
  const std::string text = p.to_string();
  EXPECT_NE(text.find(": user input mutation x0"), std::string::npos) << text;
  EXPECT_NE(text.find(": user input mutation x1"), std::string::npos) << text;

  TempFile file("input-mutation");
  save(p, file.path());
  const ExportedProgram loaded = load(file.path());
  EXPECT_EQ(loaded.signature().str(), p.signature().str());
  const runtime::Program rt = runtime::Program::load(file.path());
  const std::vector<std::pair<std::string, std::function<Tensors(const Tensor&, const Tensor&)>>>
      runners = {{"ExportedProgram::run", [&](auto& x, auto& y) { return p.run({x, y}); }},
                 {"loaded archive", [&](auto& x, auto& y) { return loaded.run({x, y}); }},
                 {"runtime", [&](auto& x, auto& y) { return rt.run({x, y}); }}};
  for (const auto& [what, run] : runners) {
    for (int64_t n : {2, 3, 8}) {
      const Tensor x0 = randn({n}, 10 + n), y0 = randn({n}, 20 + n);
      Tensor xe = x0.clone(), ye = y0.clone();
      const Tensor want = fn({xe, ye})[0];
      Tensor x = x0.clone(), y = y0.clone();
      const Tensors got = run(x, y);
      ASSERT_EQ(got.size(), 1u) << what;
      EXPECT_TRUE(same(got[0], want)) << what << ", n = " << n;
      EXPECT_TRUE(same(x, xe)) << what << ", n = " << n << ": x was not updated as eager does";
      EXPECT_TRUE(same(y, ye)) << what << ", n = " << n << ": y was not updated as eager does";
    }
  }
}

TEST(Mutation, ResNet50InTrainingModeLeavesTheSameRunningStatisticsAsEager) {
  auto eager = models::resnet50(10);
  auto traced = models::resnet50(10);
  traced->load_state_dict(eager->state_dict());
  eager->train();
  traced->train();
  const ExportedProgram p =
      export_program(*traced, forward_of(*traced), {randn({2, 3, 32, 32}, 0)});
  size_t buffer_mutations = 0;
  for (const OutputSpec& o : p.signature().outputs) {
    buffer_mutations += o.kind == OutputSpec::Kind::BufferMutation;
  }
  EXPECT_EQ(buffer_mutations, 53u * 3);  // running mean, variance and batch count per norm
  EXPECT_NE(p.to_string().find("aten::_native_batch_norm_legit_functional"), std::string::npos);
  expect_same_sequence(
      *eager, [&](const Tensor& x) { return p.run({x}); },
      [&](const std::string& name) { return p.state().at(name); },
      {randn({2, 3, 32, 32}, 1), randn({2, 3, 32, 32}, 2)}, "ResNet-50 training", 1e-4, 1e-5);
}

// A static cache written at given positions, read whole: one program serves a prefill of many
// positions and a decode of one.
class Cache : public nn::Module {
 public:
  Cache() : nn::Module("Cache") { keys = register_buffer("keys", zeros({1, 2, 8, 4})); }
  Tensor forward(const Tensor& k) override { return forward_at(k, position_); }
  Tensor forward_at(const Tensor& k, const Tensor& positions) {
    nn::ModuleScope scope(*this);
    keys.index_copy_(2, positions, k);
    return keys.sum(-1);
  }
  Tensor keys;
  Tensor position_;
};

TEST(Mutation, IndexCopyIntoACacheBufferServesPrefillAndDecode) {
  Cache traced, eager;
  const TracedFn fn = [&traced](const std::vector<Value>& in) {
    return Tensors{traced.forward_at(in[0].to_tensor(), in[1].to_tensor())};
  };
  const Dim tokens("tokens", 1, 8);
  ExportOptions options;
  options.dynamic_shapes = {{{2, tokens}}, {{0, tokens}}};
  const ExportedProgram p =
      export_program(traced, fn, {randn({1, 2, 3, 4}, 0), arange(0, 3)}, options);
  EXPECT_NE(p.to_string().find("aten::index_copy.default"), std::string::npos) << p.to_string();
  TempFile file("cache");
  save(p, file.path());
  const runtime::Program rt = runtime::Program::load(file.path());
  const std::vector<std::pair<Tensor, Tensor>> steps = {
      {randn({1, 2, 3, 4}, 1), arange(0, 3)}, {randn({1, 2, 2, 4}, 2), arange(3, 5)},
      {randn({1, 2, 2, 4}, 3), arange(5, 7)}};
  // The runtime writes the cache where it lies: no functional copy of it, no copy back.
  EXPECT_EQ(rt.plan_stats({steps[0].first, steps[0].second}).buffers_updated_in_place, 1)
      << rt.plan_stats({steps[0].first, steps[0].second}).str();
  const void* cache_memory = rt.program().state().at("keys").raw_data();
  for (const auto& [k, positions] : steps) {
    const Tensor want = eager.forward_at(k, positions);
    EXPECT_TRUE(same(p.run({k, positions})[0], want));
    EXPECT_TRUE(same(rt.run({k, positions})[0], want));
    EXPECT_TRUE(same(rt.program().state().at("keys"), eager.keys));
    EXPECT_EQ(rt.program().state().at("keys").raw_data(), cache_memory);
  }
}

TEST(Mutation, ARuntimeThatUpdatesBuffersRunsOneCallAtATime) {
  Accumulator m;
  const runtime::Program rt =
      runtime::Program::from_exported(export_program(m, forward_of(m), {ones({2, 3})}));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) rt.run({ones({2, 3})});
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(rt.program().state().at("count").item<int64_t>(), 100);
  EXPECT_TRUE(same(rt.program().state().at("total"), full({3}, 200.0)));
}

TEST(Mutation, TrainingModeDropoutIsAnOpThatDrawsAFreshMaskEveryRun) {
  auto drop = std::make_shared<nn::Dropout>(0.5);
  drop->train();
  const ExportedProgram p = export_program(*drop, forward_of(*drop), {ones({4096})});
  EXPECT_NE(p.to_string().find("aten::native_dropout.default(%x, 0.5, True)"), std::string::npos)
      << p.to_string();
  const runtime::Program rt = runtime::Program::from_exported(
      export_program(*drop, forward_of(*drop), {ones({4096})}));
  for (const auto& run : std::vector<std::function<Tensor()>>{
           [&] { return p.run({ones({4096})})[0]; }, [&] { return rt.run({ones({4096})})[0]; }}) {
    const Tensor a = run(), b = run();
    EXPECT_FALSE(allclose(a, b, 0, 0));
    const double kept = a.ne(zeros({4096})).to(DType::Float32).sum().item<double>();
    EXPECT_NEAR(kept, 2048, 200);
    EXPECT_NEAR(a.max().item<double>(), 2.0, 1e-6);
  }
}

class UpdatesParameter : public nn::Module {
 public:
  UpdatesParameter() : nn::Module("UpdatesParameter") {
    weight = register_parameter("weight", ones({3}));
    buf = register_buffer("buf", zeros({2, 3}));
  }
  Tensor forward(const Tensor& x) override {
    weight.mul_(0.5);
    return x * weight;
  }
  Tensor weight, buf;
};

TEST(Mutation, UpdatesExportCannotExpressAreRefusedWithTheFix) {
  UpdatesParameter m;
  expect_error([&] { export_program(m, forward_of(m), {ones({3})}); }, ErrorKind::UnsupportedOp,
               {"parameter weight is updated in place", "register_buffer", "mutation_test.cpp:"});

  // Writing through a view of a buffer.
  const TracedFn through_view = [&m](const std::vector<Value>& in) {
    m.buf.select(0, 0).copy_(in[0].to_tensor());
    return Tensors{m.buf * 2.0};
  };
  const std::string view_error =
      expect_error([&] { export_program(m, through_view, {ones({3})}); }, ErrorKind::UnsupportedOp,
                   {"updating a view in place", "index_copy_", "mutation_test.cpp:"});
  EXPECT_NE(view_error.find("inplace_view_update"), std::string::npos) << view_error;

  // A view taken before the update and read after it shows the update, as in eager: export
  // takes the view again from the buffer's new value.
  auto view_before_update = [](UpdatesParameter& mod) {
    return TracedFn{[&mod](const std::vector<Value>& in) {
      const Tensor row = mod.buf.select(0, 1);
      mod.buf.add_(in[0].to_tensor());
      return Tensors{row + 1.0};
    }};
  };
  UpdatesParameter exported, eager;
  const ExportedProgram before =
      export_program(exported, view_before_update(exported), {ones({3})});
  for (int call = 0; call < 2; ++call) {
    const Tensor x = full({3}, 2.0);
    EXPECT_TRUE(same(before.run({x})[0], view_before_update(eager)({x})[0])) << "call " << call;
  }
  // Taken after the update, it is the same.
  const TracedFn fresh_view = [&m](const std::vector<Value>& in) {
    m.buf.add_(in[0].to_tensor());
    return Tensors{m.buf.select(0, 1) + 1.0};
  };
  UpdatesParameter twin;
  const ExportedProgram p = export_program(m, fresh_view, {ones({3})});
  EXPECT_TRUE(same(p.run({full({3}, 2.0)})[0], full({3}, 3.0)));
  EXPECT_TRUE(same(p.run({full({3}, 2.0)})[0], full({3}, 5.0)));

  // A tensor from the enclosing scope that is not the module's.
  Tensor outside = zeros({3});
  const TracedFn closure = [&outside](const std::vector<Value>& in) {
    outside.add_(in[0].to_tensor());
    return Tensors{outside * 2.0};
  };
  expect_error([&] { export_program(closure, {ones({3})}); }, ErrorKind::UnsupportedOp,
               {"a tensor from the enclosing scope is updated in place", "register_buffer"});
}

}  // namespace
}  // namespace xport

namespace xport {
namespace {

// Found by the soundness fuzzer (tests/soundness/regressions.txt, seed 117558): a view of an
// input taken before the input is updated in place reads the new values in eager. The export
// first read the old ones, then refused the program; now it takes the view again from the new
// value, as PyTorch does, whether its size is static or only the data decides it (PyTorch
// exports these programs: tests/soundness/torch_acceptance.py).
TEST(Mutation, AViewTakenBeforeAnInPlaceUpdateShowsItWhateverItsSize) {
  for (const bool data_dependent : {false, true}) {
    SCOPED_TRACE(data_dependent ? "narrow to a data-dependent length" : "narrow to 2");
    const TracedFn fn = [data_dependent](const std::vector<Value>& in) {
      Tensor x = in[0].to_tensor();
      SymInt length = 2;
      if (data_dependent) {
        length = x.gt(0.0).sum().item_int();
        constrain_as_size(length);
        check(length <= x.size(0));
      }
      const Tensor head = x.reshape({-1}).narrow(0, 0, length);
      x.mul_(1.5);
      return Tensors{head * head, x.select(0, 0)};
    };
    const ExportedProgram p = export_program(fn, {randn({7}, 0)});
    for (uint64_t seed : {1, 2, 3}) {
      const Tensor x = randn({7}, seed);
      Tensor mine = x.clone(), theirs = x.clone();
      const std::vector<Tensor> got = p.run({mine}), want = fn({theirs});
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_TRUE(same(got[i], want[i])) << "seed " << seed << ", output " << i;
      }
      EXPECT_TRUE(same(mine, theirs)) << "seed " << seed << ": the updated input";
    }
  }
}


TEST(Mutation, UpdatingTheOnlyViewOfAResultNothingElseReachesIsAnUpdateOfTheView) {
  // matmul's decomposition returns mm(...).view(...): falcon's `mlp_output += attention_output`
  // updates such a view, whose base no tensor but the view reaches. A view of the view sees the
  // update, as in eager.
  const TracedFn hidden = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    Tensor v = (x * 2.0).view({4, 3});
    const Tensor flat = v.view({12});
    v += x.view({4, 3});  // libtorch's spelling of add_
    Tensor m = x.view({1, 3, 4}).matmul(ones({4, 2}));
    m *= 3.0;
    return Tensors{v, flat, m};
  };
  const ExportedProgram p = export_program(hidden, {randn({3, 4}, 0)});
  const ExportedProgram core = p.run_decompositions();
  for (uint64_t seed : {1, 2}) {
    const Tensor x = randn({3, 4}, seed);
    const std::vector<Tensor> want = hidden({x});
    for (const ExportedProgram* program : {&p, &core}) {
      const std::vector<Tensor> got = program->run({x});
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_TRUE(same(got[i], want[i])) << "seed " << seed << ", output " << i;
      }
    }
  }

  // The base still held, or another view of it alive: the update would show there, refused.
  const TracedFn held = [](const std::vector<Value>& in) {
    const Tensor y = in[0].to_tensor() * 2.0;
    y.view({4, 3}).add_(1.0);
    return Tensors{y};
  };
  const TracedFn sibling = [](const std::vector<Value>& in) {
    Tensor y = in[0].to_tensor() * 2.0;
    Tensor a = y.view({4, 3});
    const Tensor b = y.view({12});
    y = Tensor();
    a.add_(1.0);
    return Tensors{b};
  };
  for (const TracedFn& fn : {held, sibling}) {
    expect_error([&] { export_program(fn, {randn({3, 4}, 0)}); }, ErrorKind::UnsupportedOp,
                 {"updating a view in place", "inplace_view_update"});
  }
}

}  // namespace
}  // namespace xport
