#include <gtest/gtest.h>

#include "xport/xport.h"

namespace xport {
namespace {

// Expected strings are what PyTorch 1.13 prints for the same tensors.
TEST(Print, FloatsUseFourDecimals) {
  EXPECT_EQ(from_vector<float>({1.5f, -2.25f, 3.0f, 4.125f}, {2, 2}).str(),
            "tensor([[ 1.5000, -2.2500],\n        [ 3.0000,  4.1250]])");
}

TEST(Print, IntegralFloatsPrintWithATrailingDot) {
  EXPECT_EQ(from_vector<float>({1, 2, 3}, {3}).str(), "tensor([1., 2., 3.])");
}

TEST(Print, NonDefaultDtypesAreNamed) {
  EXPECT_EQ(from_vector<double>({0.5}, {1}).str(), "tensor([0.5000], dtype=torch.float64)");
  EXPECT_EQ(from_vector<int64_t>({3, -10}, {2}).str(), "tensor([  3, -10])");
  EXPECT_EQ(from_vector<int32_t>({1, 2}, {2}).str(), "tensor([1, 2], dtype=torch.int32)");
  EXPECT_EQ(from_vector<float>({1, 0}, {2}).to(DType::Bool).str(), "tensor([ True, False])");
}

TEST(Print, ScientificNotationForWideRanges) {
  EXPECT_EQ(from_vector<float>({1e-5f, 1.0f}, {2}).str(), "tensor([1.0000e-05, 1.0000e+00])");
}

TEST(Print, ZeroDimEmptyAndLargeTensors) {
  EXPECT_EQ(full({}, 2.5).str(), "tensor(2.5000)");
  EXPECT_EQ(zeros({0}).str(), "tensor([])");
  EXPECT_EQ(zeros({0, 3}).str(), "tensor([], size=(0, 3))");
  EXPECT_EQ(arange(2000).str(), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
}

TEST(Print, NonContiguousViewsPrintTheirOwnElements) {
  EXPECT_EQ(arange(6).view({2, 3}).t().str(), "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])");
}

}  // namespace
}  // namespace xport
