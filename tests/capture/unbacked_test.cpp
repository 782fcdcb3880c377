// Data-dependent values under capture: item_int() and data-dependent output sizes (nonzero,
// masked_select, x[mask]) become unbacked symbols bound by their nodes; check() and
// constrain_as_size() / constrain_as_value() decide guards on them and are asserted when the
// program runs; a guard nothing decides is a DataDependent error that says what to add.
#include <gtest/gtest.h>

#include "expect_error.h"
#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::expect_error;
using Tensors = std::vector<Tensor>;

bool same(const Tensor& a, const Tensor& b) {
  return a.int_sizes() == b.int_sizes() && allclose(a, b, 1e-5, 1e-6);
}

// The program agrees with eager on every input, also after the archive round trip (save, load,
// runtime, save again) and after run_decompositions.
void expect_matches_eager(const ExportedProgram& p, const TracedFn& eager,
                          const std::vector<std::vector<Value>>& inputs) {
  for (const std::string& problem : test_support::round_trip_problems(p, inputs, "unbacked")) {
    ADD_FAILURE() << problem;
  }
  const ExportedProgram core = p.run_decompositions();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensors want = eager(inputs[i]);
    for (const ExportedProgram* program : {&p, &core}) {
      const Tensors got = program->run(inputs[i]);
      ASSERT_EQ(got.size(), want.size()) << "input set " << i;
      for (size_t o = 0; o < want.size(); ++o) {
        EXPECT_TRUE(same(got[o], want[o])) << "input set " << i << ", output " << o << ": "
                                           << Value(got[o]).str() << " vs "
                                           << Value(want[o]).str();
      }
    }
  }
}

TEST(Unbacked, ItemAsASizeExportsWithItsConstraintsAsRuntimeAssertions) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const SymInt n = in[0].to_tensor().item_int();
    constrain_as_size(n, 0, 5);
    return Tensors{zeros({n, 5})};
  };
  const ExportedProgram p = export_program(fn, {full({}, 4, DType::Int64)});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("%item = aten::item.default(%x)  # i64[] u0 = value"), std::string::npos)
      << text;
  EXPECT_NE(text.find("aten::_assert_scalar.default(u0 >= 0"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::_assert_scalar.default(u0 <= 5"), std::string::npos) << text;
  EXPECT_NE(text.find("# f32[u0, 5]"), std::string::npos) << text;
  EXPECT_EQ(p.range_constraints().at("u0").lo, 0);
  EXPECT_EQ(p.range_constraints().at("u0").hi, 5);
  expect_matches_eager(p, fn, {{full({}, 0, DType::Int64)}, {full({}, 5, DType::Int64)}});
  expect_error([&] { p.run({full({}, 6, DType::Int64)}); }, ErrorKind::InvalidInput,
               {"Runtime assertion failed for expression u0 <= 5", "unbacked_test.cpp:"});
}

TEST(Unbacked, AnUndecidedGuardSaysWhichFactWouldDecideIt) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const SymInt n = in[0].to_tensor().item_int();
    return Tensors{zeros({n, 5})};  // zeros needs n >= 0, which nothing says
  };
  const std::string message = expect_error(
      [&] { export_program(fn, {full({}, 4, DType::Int64)}); }, ErrorKind::DataDependent,
      {"u0", "%x.item() at unbacked_test.cpp:", "constrain_as_size(u0)",
       "see ExportDB case 'constrain_as_size_example'"});
  EXPECT_NE(message.find("check("), std::string::npos) << message;
}

TEST(Unbacked, CheckRelatesAValueToAnInputSize) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const SymInt k = in[1].to_tensor().item_int();
    constrain_as_size(k);
    check(k <= x.size(0));
    return Tensors{x.narrow(0, 0, k)};
  };
  const ExportedProgram p = export_program(fn, {randn({6, 2}, 0), full({}, 3, DType::Int64)},
                                           {.dynamic_shapes = {{{0, Dim("n")}}, {}}});
  expect_matches_eager(p, fn,
                       {{randn({6, 2}, 1), full({}, 0, DType::Int64)},
                        {randn({9, 2}, 2), full({}, 9, DType::Int64)}});
  expect_error([&] { p.run({randn({4, 2}, 3), full({}, 5, DType::Int64)}); },
               ErrorKind::InvalidInput, {"Runtime assertion failed for expression"});
}

TEST(Unbacked, NonzeroMaskedSelectAndMaskIndexingHaveDataDependentSizes) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const Tensor mask = x.gt(0.0);
    return Tensors{nonzero(x), masked_select(x, mask), index(x, {mask}) * 2.0};
  };
  const ExportedProgram p = export_program(fn, {randn({3, 4}, 0)});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("aten::nonzero.default(%x)  # i64[u0, 2] u0 = size(0)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("u1 = size(0)"), std::string::npos) << text;
  EXPECT_EQ(p.range_constraints().at("u0").hi, 12);
  expect_matches_eager(p, fn, {{randn({3, 4}, 1)}, {-ones({3, 4})}, {ones({3, 4})}});
}

// Found by the soundness fuzzer (tests/soundness/regressions.txt, seed 58): a slice whose end
// may be past a size only the data decides clamps as min(end, u0), with no guard, as PyTorch
// does; the slice then has 0, 1 or 2 rows as the data says.
TEST(Unbacked, ASliceOfADataDependentSizeClampsWithoutAGuard) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor rows = nonzero(in[0].to_tensor().gt(0.0));
    return Tensors{rows.slice(0, 0, 2) * 2, rows.slice(0, 1, 3)};
  };
  const ExportedProgram p = export_program(fn, {randn({3, 4}, 0)});
  EXPECT_NE(p.to_string().find("Min(2, u0)"), std::string::npos) << p.to_string();
  expect_matches_eager(p, fn,
                       {{randn({3, 4}, 1)}, {-ones({3, 4})}, {ones({3, 4})},
                        {from_vector(std::vector<float>{1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                         -1, -1},
                                     {3, 4})}});
}

TEST(Unbacked, TheRuntimePlansWhatIsKnownAndSizesTheRestWhenItRuns) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const Tensor y = relu(x) * 2.0 + 1.0;  // planned: sizes known from x
    const Tensor rows = nonzero(y.gt(2.0));       // sized when it runs
    return Tensors{y.sum(1), rows.sum(0), rows};
  };
  const ExportedProgram p =
      export_program(fn, {randn({4, 3}, 0)}, {.dynamic_shapes = {{{0, Dim("n")}}}});
  const runtime::Program program = runtime::Program::from_exported(
      ExportedProgram(p.graph().clone(), p.signature(), p.contract(), p.symbols(), p.state()));
  const runtime::PlanStats stats = program.plan_stats({randn({4, 3}, 0)});
  EXPECT_TRUE(stats.planned) << stats.unplanned_reason;
  EXPECT_GE(stats.run_time_steps, 2) << stats.str();
  EXPECT_GE(stats.kernel_steps, 3) << stats.str();
  for (int64_t n : {2, 5, 9}) {
    const Tensor x = randn({n, 3}, static_cast<uint64_t>(n));
    const Tensors want = fn({x});
    const Tensors got = program.run({x});
    ASSERT_EQ(got.size(), want.size());
    for (size_t o = 0; o < want.size(); ++o) EXPECT_TRUE(same(got[o], want[o])) << n << " " << o;
  }
}

TEST(Unbacked, IndexingByIntegersIsPlannedAndByAMaskSizedWhenItRuns) {
  // index.Tensor's sizes follow from integer indices: a kernel step the planner places, here
  // with the input's symbol. How many elements a mask selects only the data says: that step,
  // and the step reading its result, are sized when they run.
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor x = in[0].to_tensor();
    const Tensor picked = index(x * 2.0, {in[1].to_tensor()});
    const Tensor positive = index(x, {x.gt(0.0)});
    return Tensors{picked.narrow(1, 0, x.size(1) - 1) + 1.0, positive * 3.0};
  };
  const Tensor idx = from_vector<int64_t>({0, 1, 1}, {3});
  const ExportedProgram p =
      export_program(fn, {randn({4, 5}, 0), idx}, {.dynamic_shapes = {{{1, Dim("d")}}, {}}});
  const runtime::Program program = runtime::Program::from_exported(
      ExportedProgram(p.graph().clone(), p.signature(), p.contract(), p.symbols(), p.state()));
  const runtime::PlanStats stats = program.plan_stats({randn({4, 7}, 1), idx});
  EXPECT_EQ(stats.run_time_steps, 2) << stats.str();
  for (int64_t d : {2, 7}) {
    const Tensor x = randn({4, d}, static_cast<uint64_t>(d));
    const Tensors got = program.run({x, idx}), want = fn({x, idx});
    for (size_t o = 0; o < want.size(); ++o) EXPECT_TRUE(same(got[o], want[o])) << d << " " << o;
  }
}

// A view sized when it runs (a slice to an unbacked length) shares its base's buffer: the base
// must stay live until the view's last reader, or the planner would give its bytes to the
// same-sized intermediate computed in between.
TEST(Unbacked, AViewSizedAtRunTimeKeepsItsBaseAlive) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor& x = in[0].to_tensor();
    const SymInt n = in[1].to_tensor().item_int();
    constrain_as_size(n, 0, 64);
    const Tensor base = x.exp();
    const Tensor view = base.slice(0, 0, n);
    const Tensor between = x * 3.0 + 1.0;  // as many bytes as base, made after the view
    return Tensors{view * 2.0, between};
  };
  const ExportedProgram p =
      export_program(fn, {randn({64}, 0), full({}, 40, DType::Int64)});
  expect_matches_eager(p, fn,
                       {{randn({64}, 1), full({}, 64, DType::Int64)},
                        {randn({64}, 2), full({}, 0, DType::Int64)},
                        {randn({64}, 3), full({}, 17, DType::Int64)}});
}

TEST(Unbacked, ItemFloatIsASymbolicFloatThatOpsAndArithmeticTake) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor& x = in[0].to_tensor();
    const SymFloat s = in[1].to_tensor().item_float();
    const SymFloat shift = s / 4.0 - 1.0;
    const Tensors branch = cond(
        x.sum().gt(0.0), [](const Tensors& a) { return Tensors{a[0] * a[1].item_float()}; },
        [](const Tensors& a) { return Tensors{a[0] - a[1].item_float()}; }, {x, in[1].to_tensor()});
    return Tensors{x * s + shift, full({2}, -shift), clamp(x, Scalar(s), std::nullopt), branch[0]};
  };
  const ExportedProgram p = export_program(fn, {randn({4}, 0), full({}, 0.5)});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("%item = aten::item.default(%x1)  # f32[]"), std::string::npos) << text;
  EXPECT_NE(text.find("_operator::truediv.default(%item, 4.0)  # f64[]"), std::string::npos)
      << text;
  EXPECT_NE(text.find("aten::mul.Scalar(%x0, %item)"), std::string::npos) << text;
  expect_matches_eager(p, fn,
                       {{randn({4}, 1), full({}, -2.25)},
                        {randn({4}, 2), full({}, 1e-3)},
                        {full({4}, 1.0), full({}, 3.0)},
                        {full({4}, -1.0), full({}, 3.0)}});
}

TEST(Unbacked, ItemFloatTakesFloatTensorsAndKeepsAFloat64sPrecision) {
  EXPECT_EQ(static_cast<double>(full({}, 0.1, DType::Float64).item_float()), 0.1);
  EXPECT_EQ(static_cast<double>(full({}, 0.1).item_float()), static_cast<double>(0.1f));
  expect_error(
      [] {
        export_program(
            [](const std::vector<Value>& in) {
              return Tensors{in[0].to_tensor() * in[0].to_tensor().item_float()};
            },
            {full({}, 3, DType::Int64)});
      },
      ErrorKind::InvalidInput, {"item_float(): the tensor holds int64", "item_int()"});
  // PyTorch's cond takes tensors only: a branch cannot close over a float read outside it.
  expect_error(
      [] {
        export_program(
            [](const std::vector<Value>& in) {
              const SymFloat s = in[1].to_tensor().item_float();
              return cond(
                  in[0].to_tensor().sum().gt(0.0),
                  [&](const Tensors& a) { return Tensors{a[0] * s}; },
                  [](const Tensors& a) { return Tensors{a[0] * 2.0}; }, {in[0].to_tensor()});
            },
            {randn({3}, 0), full({}, 0.5)});
      },
      ErrorKind::UnsupportedOp,
      {"a float from item_float() is used inside a cond", "unbacked_test.cpp:", "operand"});
}

TEST(Unbacked, ItemOutsideCaptureIsTheValue) {
  EXPECT_EQ(full({}, 7, DType::Int64).item_int().maybe_int(), 7);
  EXPECT_EQ(full({}, true).item_bool().maybe_bool(), true);
  check(SymInt(3) < 4);
  expect_error([] { constrain_as_size(SymInt(-1)); }, ErrorKind::InvalidInput,
               {"constrain_as_size: -1 is not a size"});
  expect_error([] { constrain_as_value(SymInt(9), 0, 5); }, ErrorKind::InvalidInput,
               {"constrain_as_value: 9 is outside [0, 5]"});
}

}  // namespace
}  // namespace xport
