#include "kernels/cpu/fold.h"

#include <algorithm>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {

void col2im_out(const Tensor& cols, const Fold& f, const Tensor& out) {
  const int64_t n = out.int_size(0), channels = out.int_size(1);
  const int64_t h = out.int_size(2), w = out.int_size(3);
  const int64_t kh = f.kernel[0], kw = f.kernel[1];
  // The windows along each dim, as the meta function counted them.
  const int64_t bh = (h + 2 * f.padding[0] - f.dilation[0] * (kh - 1) - 1) / f.stride[0] + 1;
  const int64_t bw = (w + 2 * f.padding[1] - f.dilation[1] * (kw - 1) - 1) / f.stride[1] + 1;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(cols, dtype_v<T>);
    const T* x = in.data<T>();
    write_as<T>(out, [&](T* y) {
      // One image plane per task: its sums read every column of its channel, in order.
      parallel_for(0, n * channels, 1, [&](int64_t b, int64_t e) {
        for (int64_t plane = b; plane < e; ++plane) {
          T* image = y + plane * h * w;
          std::fill(image, image + h * w, T(0));
          const T* rows = x + plane * kh * kw * bh * bw;  // this channel's kh * kw rows
          for (int64_t ki = 0; ki < kh; ++ki) {
            for (int64_t kj = 0; kj < kw; ++kj) {
              const T* row = rows + (ki * kw + kj) * bh * bw;
              for (int64_t i = 0; i < bh; ++i) {
                const int64_t yy = i * f.stride[0] - f.padding[0] + ki * f.dilation[0];
                if (yy < 0 || yy >= h) continue;
                for (int64_t j = 0; j < bw; ++j) {
                  const int64_t xx = j * f.stride[1] - f.padding[1] + kj * f.dilation[1];
                  if (xx >= 0 && xx < w) image[yy * w + xx] += row[i * bw + j];
                }
              }
            }
          }
        }
      });
    });
  };
  visit_floating(cols.dtype(), run);
}

}  // namespace xport::kernels::cpu
