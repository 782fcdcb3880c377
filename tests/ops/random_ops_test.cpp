// The random ops (rand, randn, randperm) draw from the one process-wide generator that
// manual_seed resets, eagerly and in exported programs; their distributions are checked
// statistically (bounds several standard errors wide), not bit for bit against PyTorch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "xport/runtime.h"
#include "xport/xport.h"

namespace xport {
namespace {

Tensor draw(const char* op, std::vector<Value> args) { return call_tensors(find_op(op), args)[0]; }

std::vector<double> values_of(const Tensor& t) { return t.to_vector<double>(); }

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double variance_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

// The fraction of v below `at`.
double below(const std::vector<double>& v, double at) {
  return static_cast<double>(std::count_if(v.begin(), v.end(), [&](double x) { return x < at; })) /
         static_cast<double>(v.size());
}

constexpr int64_t kDraws = 200000;

TEST(RandomOps, RandIsUniformOnZeroToOne) {
  for (DType dtype : {DType::Float32, DType::Float64}) {
    const std::vector<double> u =
        values_of(draw("aten::rand", {std::vector<int64_t>{kDraws}, dtype}));
    EXPECT_GE(*std::min_element(u.begin(), u.end()), 0.0);
    EXPECT_LT(*std::max_element(u.begin(), u.end()), 1.0);
    // Standard errors: mean 0.00065, variance 0.00017, a quantile 0.001.
    EXPECT_NEAR(mean_of(u), 0.5, 0.004);
    EXPECT_NEAR(variance_of(u), 1.0 / 12, 0.001);
    for (double q : {0.1, 0.25, 0.5, 0.9}) EXPECT_NEAR(below(u, q), q, 0.005) << "quantile " << q;
  }
}

TEST(RandomOps, RandnIsStandardNormal) {
  const std::vector<double> z = values_of(draw("aten::randn", {std::vector<int64_t>{kDraws}}));
  EXPECT_NEAR(mean_of(z), 0.0, 0.01);      // standard error 0.0022
  EXPECT_NEAR(variance_of(z), 1.0, 0.02);  // standard error 0.0032
  // The normal CDF at -1, 0 and 1.96.
  EXPECT_NEAR(below(z, -1.0), 0.158655, 0.005);
  EXPECT_NEAR(below(z, 0.0), 0.5, 0.005);
  EXPECT_NEAR(below(z, 1.96), 0.975002, 0.003);
}

TEST(RandomOps, RandpermIsAUniformPermutation) {
  constexpr int64_t kN = 5, kTrials = 20000;
  std::vector<int64_t> first(kN, 0);
  for (int64_t t = 0; t < kTrials; ++t) {
    std::vector<int64_t> p = draw("aten::randperm", {kN}).to_vector<int64_t>();
    first[static_cast<size_t>(p[0])]++;
    std::sort(p.begin(), p.end());
    for (int64_t i = 0; i < kN; ++i) ASSERT_EQ(p[static_cast<size_t>(i)], i);
  }
  // Each value leads a fifth of the permutations (standard error 0.0028).
  for (int64_t k = 0; k < kN; ++k)
    EXPECT_NEAR(static_cast<double>(first[k]) / kTrials, 0.2, 0.015) << "value " << k;
}

TEST(RandomOps, ManualSeedReplaysAndEachCallDrawsAfresh) {
  manual_seed(1234);
  const Tensor a = draw("aten::randn", {std::vector<int64_t>{64}});
  const Tensor b = draw("aten::randn", {std::vector<int64_t>{64}});
  EXPECT_FALSE(allclose(a, b, 0, 0));
  manual_seed(1234);
  EXPECT_TRUE(allclose(draw("aten::randn", {std::vector<int64_t>{64}}), a, 0, 0));
}

// An exported program calls the same generator: after the same seed it draws what eager drew.
TEST(RandomOps, ExportedProgramsDrawFromTheProcessGenerator) {
  ExportedProgram program = export_program(
      [](const Tensor& x) { return x + draw("aten::rand", {std::vector<int64_t>{4, 3}}); },
      {zeros({4, 3})});
  manual_seed(99);
  const Tensor eager = draw("aten::rand", {std::vector<int64_t>{4, 3}});
  manual_seed(99);
  EXPECT_TRUE(allclose(program.run({zeros({4, 3})})[0], eager, 0, 0));
  const runtime::Program compiled = runtime::Program::from_exported(std::move(program));
  manual_seed(99);
  EXPECT_TRUE(allclose(compiled.run_values({zeros({4, 3})})[0], eager, 0, 0));
  // The next call draws a new stream.
  EXPECT_FALSE(allclose(compiled.run_values({zeros({4, 3})})[0], eager, 0, 0));
}

}  // namespace
}  // namespace xport
