// Max pooling in the layouts the runtime passes convolutions' results in (channels innermost:
// oneDNN's channel blocks for float32, NHWC for 8-bit values and for channels that fill no
// block) equals xport::max_pool2d on the plain tensor bit for bit: padding never wins, NaN and
// -inf are kept, ceil_mode's partial windows too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/pool.h"
#include "xport/xport.h"

namespace xport::kernels::cpu {
namespace {

// [N, C, H, W] values laid out as memory [N, C / block, H, W, block], and back.
Tensor to_blocks(const Tensor& x, int64_t block) {
  const std::vector<int64_t> s = x.int_sizes();
  return x.reshape({s[0], s[1] / block, block, s[2], s[3]})
      .permute({0, 1, 3, 4, 2})
      .contiguous()
      .view(x.sizes());
}
Tensor from_blocks(const Tensor& y, int64_t block) {
  const std::vector<int64_t> s = y.int_sizes();
  return y.view({s[0], s[1] / block, s[2], s[3], block})
      .permute({0, 1, 4, 2, 3})
      .contiguous()
      .view(y.sizes());
}

// Values in x's dtype: float32 with NaN and -inf here and there, or 8-bit integers.
Tensor values(int64_t channels, DType dtype, uint64_t seed) {
  Tensor x = randn({2, channels, 9, 11}, seed) * 50.0;
  if (dtype == DType::UInt8) return clamp(x, 0, 255).to(dtype);
  if (dtype == DType::Int8) return clamp(x, -128, 127).to(dtype);
  x = x.contiguous();
  float* v = x.mutable_data<float>();
  for (int64_t i = 0; i < x.int_numel(); i += 37) v[i] = std::numeric_limits<float>::quiet_NaN();
  for (int64_t i = 5; i < x.int_numel(); i += 41) v[i] = -std::numeric_limits<float>::infinity();
  return x;
}

struct Window {
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceil_mode;
};

TEST(PoolChannelsInner, EqualsMaxPool2dBitForBitInEveryPassedLayout) {
  const std::vector<Window> windows = {{{3, 3}, {2, 2}, {1, 1}, {1, 1}, false},  // ResNet's stem
                                       {{2, 3}, {1, 2}, {0, 1}, {2, 1}, false},
                                       {{3, 3}, {2, 2}, {0, 0}, {1, 1}, true}};
  int checked = 0;
  for (DType dtype : {DType::Float32, DType::UInt8, DType::Int8}) {
    for (int64_t channels : {12, 24, 32}) {
      for (int64_t block : {int64_t{16}, int64_t{8}, channels}) {
        if (channels % block != 0) continue;
        const Tensor x = values(channels, dtype, static_cast<uint64_t>(channels + block));
        for (const Window& w : windows) {
          SCOPED_TRACE(std::string(dtype_name(dtype)) + ", " + std::to_string(channels) +
                       " channels in blocks of " + std::to_string(block) + ", kernel " +
                       std::to_string(w.kernel[0]) + "x" + std::to_string(w.kernel[1]));
          const Tensor want =
              max_pool2d(x, w.kernel, w.stride, w.padding, w.dilation, w.ceil_mode).contiguous();
          const Tensor got = empty(want.sizes(), dtype);
          max_pool2d_channels_inner(to_blocks(x, block),
                                    pool_window<2>(w.kernel, w.stride, w.padding, w.dilation),
                                    block, got);
          const Tensor plain = from_blocks(got, block);
          ASSERT_EQ(std::memcmp(plain.raw_data(), want.raw_data(),
                                static_cast<size_t>(want.int_numel() * element_size(dtype))),
                    0);
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 3 * 3 * (1 + 2 + 3));  // blocks of 12: 12; of 24: 8, 24; of 32: 16, 8, 32
}

// The float32 layout is the one packed convolutions pass: whole blocks of oneDNN's channel
// block for this CPU, else channels-last.
TEST(PoolChannelsInner, PassedBlockIsTheConvolutionsChannelBlockOrAllChannels) {
  const int64_t b = passed_channel_block({1, 64, 56, 56});
  EXPECT_TRUE(b == 16 || b == 8 || b == 64) << b;
  EXPECT_EQ(passed_channel_block({1, 12, 7, 7}), 12);  // fills neither a 16- nor an 8-block
  EXPECT_EQ(passed_channel_block({1, 3, 7, 7}), 3);
}

}  // namespace
}  // namespace xport::kernels::cpu
