#include "kernels/cpu/fold.h"

#include <algorithm>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {

template <class T>
void col2im_plane_add(const T* rows, const Fold& f, const FoldPlane& p, T* image) {
  for (int64_t ki = 0; ki < f.kernel[0]; ++ki) {
    for (int64_t kj = 0; kj < f.kernel[1]; ++kj) {
      const T* row = rows + (ki * f.kernel[1] + kj) * p.bh * p.bw;
      for (int64_t i = 0; i < p.bh; ++i) {
        const int64_t yy = i * f.stride[0] - f.padding[0] + ki * f.dilation[0];
        if (yy < 0 || yy >= p.h) continue;
        for (int64_t j = 0; j < p.bw; ++j) {
          const int64_t xx = j * f.stride[1] - f.padding[1] + kj * f.dilation[1];
          if (xx >= 0 && xx < p.w) image[yy * p.w + xx] += row[i * p.bw + j];
        }
      }
    }
  }
}

template <class T>
void im2col_plane(const T* image, const Fold& f, const FoldPlane& p, T* rows) {
  for (int64_t ki = 0; ki < f.kernel[0]; ++ki) {
    for (int64_t kj = 0; kj < f.kernel[1]; ++kj) {
      T* row = rows + (ki * f.kernel[1] + kj) * p.bh * p.bw;
      for (int64_t i = 0; i < p.bh; ++i) {
        const int64_t yy = i * f.stride[0] - f.padding[0] + ki * f.dilation[0];
        for (int64_t j = 0; j < p.bw; ++j) {
          const int64_t xx = j * f.stride[1] - f.padding[1] + kj * f.dilation[1];
          const bool inside = yy >= 0 && yy < p.h && xx >= 0 && xx < p.w;
          row[i * p.bw + j] = inside ? image[yy * p.w + xx] : T(0);
        }
      }
    }
  }
}

template void col2im_plane_add(const float*, const Fold&, const FoldPlane&, float*);
template void col2im_plane_add(const double*, const Fold&, const FoldPlane&, double*);
template void im2col_plane(const float*, const Fold&, const FoldPlane&, float*);
template void im2col_plane(const double*, const Fold&, const FoldPlane&, double*);

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
          // This channel's kh * kw rows.
          col2im_plane_add(x + plane * kh * kw * bh * bw, f, FoldPlane{h, w, bh, bw}, image);
        }
      });
    });
  };
  visit_floating(cols.dtype(), run);
}

}  // namespace xport::kernels::cpu
