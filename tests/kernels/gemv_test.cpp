// PackedGemv (a few rows by constant weights, packed to be read as one stream per thread)
// against a float64 reference, on sizes that leave partial chunks and groups, from weights in
// three layouts, and through PackedLinear, whose few-row path must agree with its oneDNN path.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/cpu/gemv.h"
#include "kernels/cpu/packed_linear.h"
#include "xport/xport.h"

namespace xport::kernels::cpu {
namespace {

// max |got - want| over the largest |want| (1 when all are small).
double relative_error(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0, scale = 1;
  for (size_t i = 0; i < got.size(); ++i) {
    err = std::max(err, std::fabs(got[i] - want[i]));
    scale = std::max(scale, std::fabs(want[i]));
  }
  return err / scale;
}

std::vector<double> reference(const Tensor& x, const Tensor& w) {
  const std::vector<double> xs = x.to_vector<double>(), ws = w.contiguous().to_vector<double>();
  const int64_t rows = x.int_size(0), k = w.int_size(0), n = w.int_size(1);
  std::vector<double> out(static_cast<size_t>(rows * n), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) out[r * n + j] += xs[r * k + i] * ws[i * n + j];
  return out;
}

TEST(PackedGemv, MatchesAFloat64ProductOnEveryShapeAndLayout) {
  uint64_t seed = 1;
  for (int64_t k : {1, 15, 16, 37, 768, 5000}) {
    for (int64_t n : {1, 3, 4, 13, 64, 5000}) {
      if (k * n > 400000) continue;
      // A transposed [N, K] parameter (nn.Linear's, a tied lm_head's), a plain [K, N] one
      // (GPT-2's Conv1D), and every other column of a wider one.
      const Tensor layouts[] = {randn({n, k}, seed).t(), randn({k, n}, seed + 1),
                                randn({k, 2 * n}, seed + 2).slice(1, 0, 2 * n, 2)};
      seed += 3;
      for (size_t l = 0; l < 3; ++l) {
        const PackedGemv gemv(layouts[l]);
        for (int64_t rows = 1; rows <= PackedGemv::kMaxRows; ++rows) {
          const Tensor x = randn({rows, k}, seed++);
          std::vector<float> out(static_cast<size_t>(rows * n), NAN);
          gemv.run(x.data<float>(), rows, out.data());
          EXPECT_LT(relative_error(out, reference(x, layouts[l])), 1e-5)
              << "k " << k << " n " << n << " rows " << rows << " layout " << l;
        }
      }
    }
  }
}

TEST(PackedGemv, PackedLinearsFewRowPathAgreesWithItsOneDnnPath) {
  const int64_t k = 96, n = 40;
  const Tensor w = randn({n, k}, 7).t(), bias = randn({n}, 8);
  for (LinearActivation act : {LinearActivation::None, LinearActivation::Relu,
                               LinearActivation::GeluErf, LinearActivation::GeluTanh}) {
    const PackedLinear linear(w, bias, act);
    const Tensor x = randn({9, k}, 9);  // 9 rows: oneDNN
    const Tensor all = empty({9, n});
    linear.run(x, all);
    for (int64_t rows : {1, 3, 4}) {  // the few-row path, on the first rows
      const Tensor few = empty({rows, n});
      linear.run(x.slice(0, 0, rows), few);
      // Sums in another order: within float32 rounding of the largest term.
      EXPECT_TRUE(allclose(few, all.slice(0, 0, rows), 1e-5, 1e-5))
          << "activation " << static_cast<int>(act) << ", rows " << rows << ": max difference "
          << (few - all.slice(0, 0, rows)).abs().max().item<double>();
    }
  }
}

TEST(PackedGemv, RefusesRowCountsItDoesNotTake) {
  const PackedGemv gemv(randn({8, 8}, 1));
  std::vector<float> x(8 * 5, 1.0f), out(8 * 5);
  EXPECT_THROW(gemv.run(x.data(), 0, out.data()), Error);
  EXPECT_THROW(gemv.run(x.data(), PackedGemv::kMaxRows + 1, out.data()), Error);
}

}  // namespace
}  // namespace xport::kernels::cpu
