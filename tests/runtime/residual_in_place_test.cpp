// A fused convolution that is the last reader of its residual writes its result over it (no
// copy of the residual into the result): the results stay those of the unfused graph, run
// after run, with oneDNN's direct and Winograd kernels.
#include <gtest/gtest.h>

#include "xport/xport.h"

namespace xport {
namespace {

Tensor weight(int64_t out, int64_t in, uint64_t seed) { return randn({out, in, 3, 3}, seed) * 0.1; }

class ResidualInPlace : public ::testing::TestWithParam<int64_t> {};

// 16 channels: results pass between convolutions in oneDNN's blocked layout. Images of 6 x 6
// run on the direct kernels; from 14 x 14 the 3x3 convolutions take the Winograd ones where
// the machine has them.
TEST_P(ResidualInPlace, BlocksWriteOverTheirResidualAndMatchTheUnfusedGraph) {
  const int64_t side = GetParam();
  const Tensor w1 = weight(16, 4, 1), w2 = weight(16, 16, 2), w3 = weight(16, 16, 3),
               w4 = weight(16, 16, 4), w5 = weight(16, 16, 5), b1 = randn({16}, 6);
  const std::vector<int64_t> one = {1, 1};
  auto fn = [&](const Tensor& x) {
    const Tensor a = conv2d(x, w1, b1, one, one);
    const Tensor b = relu(conv2d(a, w2, Tensor(), one, one));
    const Tensor c = relu(conv2d(b, w3, Tensor(), one, one) + a);  // a's last reader
    const Tensor e = relu(conv2d(c, w4, Tensor(), one, one));
    const Tensor f = relu(conv2d(e, w5, Tensor(), one, one) + c);  // c: itself written over
    // f is this convolution's input as well as its residual: not written over.
    return relu(conv2d(f, w5, Tensor(), one, one) + f);
  };
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 1, 8)}}};
  const ExportedProgram p = export_program(fn, {randn({2, 4, side, side}, 7)}, options);
  runtime::Options fuse, plain;
  plain.fuse = false;
  const runtime::Program fused = runtime::Program::from_exported(
      export_program(fn, {randn({2, 4, side, side}, 7)}, options), fuse);
  const runtime::Program unfused = runtime::Program::from_exported(
      export_program(fn, {randn({2, 4, side, side}, 7)}, options), plain);
  const runtime::PlanStats stats = fused.plan_stats({randn({3, 4, side, side}, 8)});
  EXPECT_NE(stats.fusion.find("2 written over their residual"), std::string::npos)
      << stats.fusion;
  for (int round = 0; round < 3; ++round) {
    for (int64_t batch : {1, 3, 8}) {
      const Tensor x = randn({batch, 4, side, side}, 10 + static_cast<uint64_t>(batch));
      const std::vector<Tensor> want = unfused.run({x});
      const std::vector<Tensor> got = fused.run({x});
      ASSERT_EQ(got.size(), 1u);
      EXPECT_TRUE(allclose(got[0], want[0], 1e-4, 1e-5)) << "batch " << batch;
      EXPECT_TRUE(allclose(got[0], p.run({x})[0], 1e-4, 1e-5)) << "batch " << batch;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ImageSides, ResidualInPlace, ::testing::Values(6, 16));

}  // namespace
}  // namespace xport
