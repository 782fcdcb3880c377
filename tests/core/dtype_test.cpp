#include <gtest/gtest.h>

#include <cmath>

#include "xport/xport.h"

namespace xport {
namespace {

TEST(Half, RoundsToNearestEven) {
  EXPECT_EQ(Half(1.0f).bits, 0x3c00);
  EXPECT_EQ(Half(65504.0f).bits, 0x7bff);
  EXPECT_EQ(Half(65520.0f).bits, 0x7c00);            // rounds up to inf
  EXPECT_EQ(Half(1.0f + 1.0f / 2048).bits, 0x3c00);  // tie rounds to even
  EXPECT_EQ(Half(1.0f + 3.0f / 2048).bits, 0x3c02);
  EXPECT_EQ(Half(5.9604644775390625e-8f).bits, 0x0001);  // smallest subnormal
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(NAN))));
  EXPECT_EQ(static_cast<float>(Half(-2.5f)), -2.5f);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(static_cast<float>(BFloat16(1.00390625f)), 1.0f);  // tie to even
  EXPECT_EQ(static_cast<float>(BFloat16(1.01171875f)), 1.015625f);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(NAN))));
}

TEST(PromoteTypes, FollowsPyTorchTable) {
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int8), DType::Int16);
  EXPECT_EQ(promote_types(DType::Float16, DType::BFloat16), DType::Float32);
  EXPECT_EQ(promote_types(DType::Bool, DType::Int32), DType::Int32);
  EXPECT_EQ(promote_types(DType::Int64, DType::Float16), DType::Float16);
}

TEST(ResultType, ScalarsAndZeroDimTensorsParticipateWeakly) {
  const Tensor i32 = zeros({3}, DType::Int32);
  const Tensor f16 = zeros({3}, DType::Float16);
  const Tensor f64_0d = zeros({}, DType::Float64);
  EXPECT_EQ(ResultType().tensor(i32).scalar(2.5).get(), DType::Float32);
  EXPECT_EQ(ResultType().tensor(i32).scalar(int64_t{2}).get(), DType::Int32);
  EXPECT_EQ(ResultType().tensor(f16).tensor(f64_0d).get(), DType::Float16);
  EXPECT_EQ(ResultType().tensor(i32).tensor(f64_0d).get(), DType::Float64);
  EXPECT_EQ(ResultType().tensor(zeros({2}, DType::Bool)).scalar(int64_t{1}).get(), DType::Int64);
}

TEST(DType, ParsesNamesAndRejectsUnknown) {
  EXPECT_EQ(parse_dtype("float32"), DType::Float32);
  EXPECT_EQ(parse_dtype("bf16"), DType::BFloat16);
  EXPECT_EQ(parse_dtype("long"), DType::Int64);
  EXPECT_EQ(parse_dtype("cfloat"), DType::Complex64);
  try {
    parse_dtype("complex32");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  }
}

// Complex tensors go as far as the FFT ops need: promotion, sizes, copies, printing and .npy,
// views as float pairs; any other op refuses them before its kernel runs.
TEST(Complex, PromotesCopiesAndIsRefusedByRealOps) {
  EXPECT_EQ(promote_types(DType::Complex64, DType::Float64), DType::Complex128);
  EXPECT_EQ(promote_types(DType::Int64, DType::Complex64), DType::Complex64);
  EXPECT_EQ(element_size(DType::Complex128), 16);
  EXPECT_FALSE(can_cast(DType::Complex64, DType::Float64));
  EXPECT_TRUE(can_cast(DType::Float32, DType::Complex64));

  const Tensor parts = from_vector<float>({1, 2, 3, -4}, {2, 2});
  const Tensor z = call_op("aten::view_as_complex", {parts}).to_tensor();
  EXPECT_EQ(z.dtype(), DType::Complex64);
  EXPECT_EQ(z.int_sizes(), (std::vector<int64_t>{2}));
  const Tensor copy = z.clone();
  EXPECT_NE(copy.raw_data(), z.raw_data());
  EXPECT_TRUE(allclose(call_op("aten::view_as_real", {copy}).to_tensor(), parts));
  EXPECT_NE(z.str().find("dtype=torch.complex64"), std::string::npos) << z.str();
  try {
    (void)(z + z);
    FAIL() << "add took a complex tensor";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::UnsupportedOp);
    EXPECT_NE(std::string(e.what()).find("view_as_real"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace xport
