// Sizes 0 and 1 for dynamic dims: a Dim whose range starts at 0 or 1 keeps that range, and the
// exported program runs those sizes as eager does; a program whose decisions differ at 0 or 1
// fails to export saying which decision; an example of size 0 or 1 exports the general program.
#include <gtest/gtest.h>

#include "expect_error.h"
#include "xport/nn/models.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::expect_error;

bool same(const Tensor& a, const Tensor& b) {
  return a.int_sizes() == b.int_sizes() && allclose(a, b, 1e-4, 1e-5);
}

Tensor ids(int64_t batch, int64_t seq, uint64_t seed) {
  std::vector<int64_t> v(static_cast<size_t>(batch * seq));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>((i * 7919 + seed * 31) % 50257);
  return from_vector(v, {batch, seq});
}

// Exports `model` with `options` on `example` and compares runs on each of `inputs` with eager,
// through ExportedProgram::run and the runtime.
void expect_runs_like_eager(nn::Module& model, const Tensor& example, const ExportOptions& options,
                            const std::vector<Tensor>& inputs) {
  model.eval();
  auto fn = [&](const Tensor& x) { return model.forward(x); };
  const ExportedProgram p = export_program(model, fn, {example}, options);
  const runtime::Program rt = runtime::Program::from_exported(export_program(model, fn, {example}, options));
  for (const Tensor& x : inputs) {
    const Tensor want = model.forward(x);
    EXPECT_TRUE(same(p.run({x}).at(0), want)) << Value(x).str();
    EXPECT_TRUE(same(rt.run({x}).at(0), want)) << "runtime, " << Value(x).str();
  }
}

ExportOptions batch_from(int64_t min, int64_t max, std::vector<int64_t> other_dims = {}) {
  ExportOptions options;
  DimSpec spec = {{0, Dim("batch", min, max)}};
  for (int64_t d : other_dims) spec.emplace(d, Dim("seq", min, max));
  options.dynamic_shapes = {spec};
  return options;
}

TEST(SizeOne, EveryReferenceModelRunsBatchOneAndBatchNFromOneProgram) {
  {
    SCOPED_TRACE("mlp");
    auto m = models::mlp({16, 32, 8});
    expect_runs_like_eager(*m, randn({4, 16}, 0), batch_from(1, 64),
                           {randn({1, 16}, 1), randn({64, 16}, 2), randn({5, 16}, 3)});
  }
  {
    SCOPED_TRACE("resnet18");
    auto m = models::resnet18();
    expect_runs_like_eager(*m, randn({2, 3, 32, 32}, 0), batch_from(1, 4),
                           {randn({1, 3, 32, 32}, 1), randn({4, 3, 32, 32}, 2)});
  }
  {
    SCOPED_TRACE("bert");
    models::BertConfig config;
    config.num_layers = 2;
    auto m = models::bert_encoder(config);
    expect_runs_like_eager(*m, randn({2, 8, 768}, 0), batch_from(1, 8, {1}),
                           {randn({1, 8, 768}, 1), randn({8, 8, 768}, 2), randn({1, 1, 768}, 3),
                            randn({3, 1, 768}, 4)});
  }
  {
    SCOPED_TRACE("gpt2");
    models::Gpt2Config config;
    config.n_layer = 2;
    auto m = models::gpt2(config);
    expect_runs_like_eager(*m, ids(2, 8, 0), batch_from(1, 8, {1}),
                           {ids(1, 8, 1), ids(8, 8, 2), ids(1, 1, 3), ids(2, 1, 4)});
  }
}

// Broadcasting a dynamic size against a static 1 takes no guard (PyTorch decides it
// size-obliviously too): the result has that size whether or not it is 1, so a Dim from 1 keeps
// its range, and batch 1 runs as eager does. The same for expand and for matmul's batch dims.
TEST(SizeOne, BroadcastingAgainstAStaticOneKeepsARangeFromOne) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor(), y = in[1].to_tensor(), w = in[2].to_tensor();
    return std::vector<Tensor>{x + y, y.expand({x.size(0), 4}) * x,
                               x.unsqueeze(1).matmul(w).squeeze(1)};
  };
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("n", 1, 32)}}, {}, {}};
  const ExportedProgram p =
      export_program(fn, {randn({7, 4}, 0), randn({1, 4}, 1), randn({1, 4, 3}, 2)}, options);
  ASSERT_EQ(p.range_constraints().size(), 1u);
  EXPECT_EQ(p.range_constraints().begin()->second.lo, 1);
  EXPECT_EQ(p.range_constraints().begin()->second.hi, 32);
  const runtime::Program rt = runtime::Program::from_exported(
      export_program(fn, {randn({7, 4}, 0), randn({1, 4}, 1), randn({1, 4, 3}, 2)}, options));
  for (int64_t n : {1, 32, 5}) {
    const std::vector<Value> in = {randn({n, 4}, 3), randn({1, 4}, 4), randn({1, 4, 3}, 5)};
    const std::vector<Tensor> want = fn(in);
    const std::vector<Tensor> got = p.run(in), ran = rt.run_values(in);
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(same(got[i], want[i])) << "n = " << n << ", output " << i;
      EXPECT_TRUE(same(ran[i], want[i])) << "runtime, n = " << n << ", output " << i;
    }
  }
  test_support::expect_error([&] { p.run({randn({33, 4}, 6), randn({1, 4}, 7),
                                          randn({1, 4, 3}, 8)}); },
                             ErrorKind::InvalidInput, {"Dim 'n'"});
}

// Found by the soundness fuzzer's comparison with torch.export (v1 700001): x[0:2] with
// x: [m], m in [1, 25] guarded m >= 2 and refused the spec; PyTorch exports it. The size is
// now min(2, m), with no guard, and right at m = 1.
TEST(SizeOne, ASliceEndInsideTheRangeIsAMinNotAGuard) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    return std::vector<Tensor>{x.slice(0, 0, 2) * 2.0, x.slice(0, 1, 30) + 1.0,
                               x.slice(0, 0, 1) + ones({3})};
  };
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("m", 1, 25)}}};
  const ExportedProgram p = export_program(fn, {randn({5}, 0)}, options);
  EXPECT_NE(p.to_string().find("f32[Min(2, s0)]"), std::string::npos) << p.to_string();
  EXPECT_EQ(p.range_constraints().begin()->second.lo, 1);
  const runtime::Program rt =
      runtime::Program::from_exported(export_program(fn, {randn({5}, 0)}, options));
  for (int64_t m : {1, 2, 25, 7}) {
    const std::vector<Value> in = {randn({m}, static_cast<uint64_t>(m))};
    const std::vector<Tensor> want = fn(in);
    const std::vector<Tensor> got = p.run(in), ran = rt.run_values(in);
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(same(got[i], want[i])) << "m = " << m << ", output " << i;
      EXPECT_TRUE(same(ran[i], want[i])) << "runtime, m = " << m << ", output " << i;
    }
  }
}

// Found the same way (v1 700224): cat of a data-dependent 1-D narrow asked "u0 == 0" (PyTorch
// skips empty 1-D inputs) and refused; among 1-D inputs skipping changes nothing, so nothing is
// asked.
TEST(SizeOne, CatOfAMaybeEmptyDataDependentLengthExports) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const SymInt u = x.gt(0.0).sum().item_int();
    constrain_as_size(u);
    check(u <= x.size(0));
    const Tensor head = x.narrow(0, 0, u);
    return std::vector<Tensor>{cat({head, head * 2.0}, 0)};
  };
  // u0 in [0, 5], and in [0, 1] (v2 901076), where no size-oblivious rule decides u0 == 0.
  for (int64_t n : {5, 1}) {
    const ExportedProgram p = export_program(fn, {randn({n}, 0)});
    for (const Tensor& x : {randn({n}, 1), -ones({n}), ones({n})}) {
      EXPECT_TRUE(same(p.run({x}).at(0), fn({x}).at(0))) << Value(x).str();
    }
  }
}

// map refuses 0 rows in eager (as PyTorch's does), so a spec that allows 0 rows is refused at
// export, naming the Dim, even where the map's result is unused and would be removed from the
// graph (found by the soundness fuzzer: v2 500235 1 2).
TEST(SizeOne, MapOverADimThatMayBeEmptyIsRefusedAtExport) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    map([](const Tensor& row, const std::vector<Tensor>&) { return std::vector{row.tanh()}; },
        x);
    return std::vector<Tensor>{x + 1.0};
  };
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("n", 0, 21)}}};
  expect_error([&] { export_program(fn, {randn({3, 2}, 0)}, options); },
               ErrorKind::ConstraintViolation, {"n >= 1", "Dim n(\"n\", 1, 21)"});
  options.dynamic_shapes = {{{0, Dim("n", 1, 21)}}};
  EXPECT_NO_THROW(export_program(fn, {randn({3, 2}, 0)}, options));
}

TEST(SizeOne, AnExampleOfSizeOneExportsTheGeneralProgram) {
  auto m = models::mlp({16, 32, 8});
  expect_runs_like_eager(*m, randn({1, 16}, 0), batch_from(1, 64),
                         {randn({1, 16}, 1), randn({9, 16}, 2)});
  ExportOptions options = batch_from(1, 64);
  m->eval();
  const ExportedProgram p =
      export_program(*m, [&](const Tensor& x) { return m->forward(x); }, {randn({1, 16}, 0)},
                     options);
  EXPECT_EQ(p.range_constraints().begin()->second.lo, 1);
  EXPECT_EQ(p.range_constraints().begin()->second.hi, 64);
}

}  // namespace
}  // namespace xport
