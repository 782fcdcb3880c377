#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "xport/xport.h"

namespace xport {
namespace {

TEST(Storage, IsAlignedTo64Bytes) {
  for (int64_t n : {1, 3, 17, 1000}) {
    const Tensor t = empty({n});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
  }
}

TEST(Views, ShareStorageWithTheirBase) {
  Tensor x = arange(12, DType::Float32).view({3, 4});
  Tensor row = x.select(0, 1);
  Tensor col = x.slice(1, 1, 3).t();
  row.fill_(-1.0);
  EXPECT_EQ(x.to_vector<float>()[4], -1.0f);
  EXPECT_EQ(x.to_vector<float>()[7], -1.0f);
  EXPECT_EQ(col.int_sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(col.int_strides(), (std::vector<int64_t>{1, 4}));
  EXPECT_FALSE(col.is_contiguous());
  EXPECT_TRUE(col.contiguous().is_contiguous());
  EXPECT_EQ(col.contiguous().to_vector<float>(), (std::vector<float>{1, -1, 9, 2, -1, 10}));
}

TEST(Views, ReshapeViewsWhenItCanAndCopiesWhenItMust) {
  const Tensor x = arange(6, DType::Float32).view({2, 3});
  EXPECT_EQ(x.reshape({3, 2}).storage(), x.storage());
  EXPECT_NE(x.t().reshape({6}).storage(), x.storage());
  EXPECT_EQ(x.t().reshape({6}).to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(Views, ExpandUsesZeroStrides) {
  const Tensor x = from_vector<float>({1, 2, 3}, {3, 1}).expand({3, 4});
  EXPECT_EQ(x.int_strides(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ((x + ones({4})).to_vector<float>()[11], 4.0f);
}

TEST(Tensor, InPlaceOpsWriteThroughViews) {
  Tensor x = zeros({2, 3});
  x.select(1, 2).add_(ones({2}), 3);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 0, 3, 0, 0, 3}));
  Tensor y = arange(5, DType::Float32);
  y.copy_(y.slice(0, 0, 5).clone().mul(2.0));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0, 2, 4, 6, 8}));
}

TEST(Tensor, ItemReadsOneElementAndRefusesMore) {
  EXPECT_EQ(full({}, 2.5).item<double>(), 2.5);
  EXPECT_EQ(full({1, 1}, int64_t{7}).item<int64_t>(), 7);
  try {
    (void)zeros({2}).item<float>();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  }
}

TEST(Tensor, DataOfTheWrongTypeIsRefused) {
  const Tensor x = zeros({2}, DType::Int32);
  EXPECT_THROW((void)x.data<float>(), Error);
  EXPECT_NE(x.data<int32_t>(), nullptr);
}

TEST(Random, SeedsAreReproducibleAndDistributionsPlausible) {
  const Tensor a = randn({10000}, 42), b = randn({10000}, 42), c = randn({10000}, 43);
  EXPECT_TRUE(allclose(a, b, 0, 0));
  EXPECT_FALSE(allclose(a, c));
  const std::vector<float> v = a.to_vector<float>();
  double mean = 0, var = 0;
  for (float x : v) mean += x;
  mean /= v.size();
  for (float x : v) var += (x - mean) * (x - mean);
  var /= v.size();
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, 1.0, 0.05);
  const std::vector<float> u = rand({1000}, 7).to_vector<float>();
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 0.0f);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 1.0f);
}

TEST(Allclose, ComparesWithToleranceBroadcastingAndNaN) {
  const Tensor a = from_vector<float>({1.0f, NAN}, {2});
  EXPECT_TRUE(allclose(a, from_vector<float>({1.000001f, NAN}, {2})));
  EXPECT_FALSE(allclose(a, from_vector<float>({1.1f, NAN}, {2})));
  EXPECT_FALSE(allclose(zeros({3}), zeros({4})));
}

}  // namespace
}  // namespace xport

namespace xport {
namespace {

TEST(InPlace, ReadsAnOverlappingInputBeforeWriting) {
  Tensor a = arange(5, DType::Float32);
  a.slice(0, 1).add_(a.slice(0, 0, 4));  // every element reads its left neighbour's old value
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0, 1, 3, 5, 7}));
}

TEST(InPlace, RefusesToWriteIntoAnExpandedTensor) {
  Tensor e = zeros({1}).expand({4});
  try {
    e.add_(arange(4, DType::Float32));
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(err.what()).find("single memory location"), std::string::npos);
  }
  EXPECT_THROW(e.copy_(ones({4})), Error);
}

}  // namespace
}  // namespace xport
