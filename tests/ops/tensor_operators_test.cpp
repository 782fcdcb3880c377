// Comparison operators as a libtorch user writes them (`x > 0`, `0 < x`, `a == b`): elementwise,
// bool tensors, the scalar on either side; under capture they record the ATen comparison, so
// `cond(x.sum() > 0, ...)` reads as in PyTorch's tutorial.
#include <gtest/gtest.h>

#include "xport/xport.h"

namespace xport {
namespace {

std::vector<bool> values(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::Bool);
  return t.to_vector<bool>();
}

TEST(TensorOperators, ComparisonsAreElementwiseWithTheScalarOnEitherSide) {
  const Tensor x = from_vector(std::vector<float>{-1, 0, 2}, {3});
  const Tensor y = from_vector(std::vector<float>{0, 0, 3}, {3});
  using B = std::vector<bool>;
  EXPECT_EQ(values(x > 0), (B{false, false, true}));
  EXPECT_EQ(values(x >= 0), (B{false, true, true}));
  EXPECT_EQ(values(x < 0), (B{true, false, false}));
  EXPECT_EQ(values(x <= 0), (B{true, true, false}));
  EXPECT_EQ(values(x == 2), (B{false, false, true}));
  EXPECT_EQ(values(x != 2), (B{true, true, false}));
  EXPECT_EQ(values(0 < x), values(x > 0));
  EXPECT_EQ(values(0.5 >= x), values(x <= 0.5));
  EXPECT_EQ(values(x == y), (B{false, true, false}));
  EXPECT_EQ(values(x < y), (B{true, false, true}));
  EXPECT_EQ(values(x >= y), (B{false, true, false}));
}

TEST(TensorOperators, ACaptureRecordsTheComparison) {
  const ExportedProgram p = export_program(
      [](const std::vector<Value>& in) {
        const Tensor& x = in[0].to_tensor();
        return cond(
            x.sum() > 0, [](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * 2}; },
            [](const std::vector<Tensor>& a) { return std::vector<Tensor>{-a[0]}; }, {x});
      },
      {randn({4}, 0)});
  EXPECT_NE(p.to_string().find("aten::gt.Scalar(%sum, 0)"), std::string::npos) << p.to_string();
  const Tensor positive = full({4}, 1.0), negative = full({4}, -1.0);
  EXPECT_TRUE(allclose(p.run({positive})[0], positive * 2));
  EXPECT_TRUE(allclose(p.run({negative})[0], -negative));
}

}  // namespace
}  // namespace xport
