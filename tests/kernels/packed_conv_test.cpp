// Packed convolutions that pass their result to the next one in oneDNN's own layout (the
// runtime does so between ResNet's convolutions): the layout must be one oneDNN's kernels for
// this CPU take (nChw16c with AVX-512, nChw8c with AVX2), or every such convolution runs its
// reference code, correct and 100x slower. `make test` runs this capped at AVX2 too.
#include <gtest/gtest.h>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/onednn.h"
#include "xport/xport.h"

namespace xport::kernels::cpu {
namespace {

// y = conv_b(relu(conv_a(x))), the middle tensor kept in the layout passed between them.
Tensor run_packed_pair(const Tensor& x, const Tensor& wa, const Tensor& wb, const Tensor& bias) {
  const Conv2dParams same{.padding = {1, 1}};
  PackedConv2d a(wa, bias, same, ConvEpilogue{.relu = true});
  PackedConv2d b(wb, bias, same, ConvEpilogue{});
  a.set_layouts(ConvLayouts{.dst_nhwc = true});
  b.set_layouts(ConvLayouts{.src_nhwc = true});
  const Tensor middle = xport::empty(x.sizes());
  const Tensor y = xport::empty(x.sizes());
  a.run(x, Tensor(), middle);
  b.run(middle, Tensor(), y);
  return y;
}

TEST(PackedConv, PassesResultsInALayoutThisCpusKernelsTake) {
  // 16 and 64 channels fill 16- and 8-channel blocks, 24 only 8-channel ones, 12 neither; 4
  // are too few for a blocked source (Hugging Face's ResNet and RegNet have such 1x1 layers).
  for (int64_t channels : {4, 12, 16, 24, 64}) {
    for (int64_t batch : {1, 4}) {
      SCOPED_TRACE(std::to_string(channels) + " channels, batch " + std::to_string(batch));
      const uint64_t seed = static_cast<uint64_t>(channels * 10 + batch);
      const Tensor x = randn({batch, channels, 14, 14}, seed);
      const Tensor wa = randn({channels, channels, 3, 3}, seed + 1) * 0.1;
      const Tensor wb = randn({channels, channels, 3, 3}, seed + 2) * 0.1;
      const Tensor bias = randn({channels}, seed + 3);
      const Tensor want =
          conv2d(relu(conv2d(x, wa, bias, {1, 1}, {1, 1})), wb, bias, {1, 1}, {1, 1});
      EXPECT_TRUE(allclose(run_packed_pair(x, wa, wb, bias), want, 1e-4, 1e-4));
    }
  }
  EXPECT_EQ(onednn_reference_implementations(), std::vector<std::string>{})
      << "kernels on " << kernel_isa();
}

}  // namespace
}  // namespace xport::kernels::cpu
