// Max pooling of 8-bit values in NHWC memory: ResNet's stem pool between two integer
// convolutions, whose results the runtime keeps NHWC. One output pixel at a time, its channels
// contiguous: a byte maximum per channel over the window's pixels, which the compiler
// vectorizes.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/pool.h"
#include "xport/core/error.h"

namespace xport::kernels::cpu {
namespace {

template <class T>
void pool_rows(const T* in, T* out, int64_t channels, int64_t in_h, int64_t in_w, int64_t out_h,
               int64_t out_w, const Pool2d& p, int64_t begin, int64_t end) {
  for (int64_t row = begin; row < end; ++row) {  // row = n * out_h + oh
    const int64_t n = row / out_h, oh = row % out_h;
    for (int64_t ow = 0; ow < out_w; ++ow) {
      T* o = out + (row * out_w + ow) * channels;
      std::fill(o, o + channels, std::numeric_limits<T>::lowest());
      for (int64_t kh = 0; kh < p.kernel[0]; ++kh) {
        const int64_t ih = oh * p.stride[0] - p.pad[0] + kh * p.dilation[0];
        if (ih < 0 || ih >= in_h) continue;
        for (int64_t kw = 0; kw < p.kernel[1]; ++kw) {
          const int64_t iw = ow * p.stride[1] - p.pad[1] + kw * p.dilation[1];
          if (iw < 0 || iw >= in_w) continue;
          const T* x = in + ((n * in_h + ih) * in_w + iw) * channels;
          for (int64_t c = 0; c < channels; ++c) o[c] = std::max(o[c], x[c]);
        }
      }
    }
  }
}

}  // namespace

void max_pool2d_nhwc_8bit(const Tensor& self, const Pool2d& pool, const Tensor& out) {
  XPORT_CHECK(self.dim() == 4 && out.dim() == 4 && self.dtype() == out.dtype() &&
                  (self.dtype() == DType::UInt8 || self.dtype() == DType::Int8) &&
                  self.is_contiguous() && out.is_contiguous(),
              Internal, "max_pool2d_nhwc_8bit: takes contiguous 8-bit [N, C, H, W] tensors");
  const std::vector<int64_t> in = self.int_sizes(), o = out.int_sizes();
  const int64_t rows = o[0] * o[2];
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(o[1] * o[3], 1));
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    if (self.dtype() == DType::UInt8) {
      pool_rows(static_cast<const uint8_t*>(self.raw_data()),
                static_cast<uint8_t*>(out.raw_data()), in[1], in[2], in[3], o[2], o[3],
                pool, begin, end);
    } else {
      pool_rows(static_cast<const int8_t*>(self.raw_data()),
                static_cast<int8_t*>(out.raw_data()), in[1], in[2], in[3], o[2], o[3],
                pool, begin, end);
    }
  });
}

}  // namespace xport::kernels::cpu
