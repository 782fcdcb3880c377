#include "kernels/cpu/conv_grad.h"


#include <algorithm>
#include <vector>

#include "kernels/cpu/conv.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/fold.h"
#include "kernels/cpu/onednn.h"
#include "kernels/cpu/parallel.h"
#include "xport/core/error.h"

namespace xport::kernels::cpu {
namespace {

// c [m, n] = op(a) [m, k] @ op(b) [k, n] + beta * c, row-major; op transposes when asked.
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  const dnnl_status_t s =
      onednn_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  XPORT_CHECK(s == dnnl_success, Internal, "convolution gradient: dnnl_sgemm failed (", s, ")");
}

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
          const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      }
      c[i * ldc + j] = (beta == 0 ? 0.0 : beta * c[i * ldc + j]) + sum;
    }
  }
}

// A convolution seen from its two sides: `windows` [N, Cw, bh, bw] holds one value per window
// position and channel, `image` [N, Ci, h, w] the image the windows slide over, and `weight`
// [Cw, Ci / groups, kh, kw] joins them. A convolution computes windows from image; a
// transposed convolution image from windows.
struct Sides {
  int64_t batch, window_channels, image_channels, groups;
  Fold fold;
  FoldPlane plane;
  int64_t k() const { return image_channels / groups * fold.kernel[0] * fold.kernel[1]; }
  int64_t windows() const { return plane.bh * plane.bw; }
};

Sides sides(const Tensor& windows, const Tensor& image, const Tensor& weight,
            const ConvGeometry& g) {
  return Sides{.batch = image.int_size(0),
               .window_channels = windows.int_size(1),
               .image_channels = image.int_size(1),
               .groups = g.groups,
               .fold = Fold{.kernel = {weight.int_size(2), weight.int_size(3)},
                            .dilation = g.dilation,
                            .padding = g.padding,
                            .stride = g.stride},
               .plane = FoldPlane{.h = image.int_size(2),
                                  .w = image.int_size(3),
                                  .bh = windows.int_size(2),
                                  .bw = windows.int_size(3)}};
}

// image = col2im(W_g^T @ windows_g) per sample and group: a transposed convolution, or the
// input gradient of a convolution.
template <class T>
void scatter(const Sides& s, const T* windows, const T* weight, T* image) {
  const int64_t cw = s.window_channels / s.groups, ci = s.image_channels / s.groups;
  const int64_t k = s.k(), l = s.windows(), hw = s.plane.h * s.plane.w;
  parallel_for(0, s.batch, 1, [&](int64_t lo, int64_t hi) {
    std::vector<T> cols(static_cast<size_t>(k * l));
    for (int64_t n = lo; n < hi; ++n) {
      for (int64_t g = 0; g < s.groups; ++g) {
        gemm(true, false, k, l, cw, weight + g * cw * k, k,
             windows + (n * s.window_channels + g * cw) * l, l, T(0), cols.data(), l);
        for (int64_t c = 0; c < ci; ++c) {
          T* plane = image + (n * s.image_channels + g * ci + c) * hw;
          std::fill(plane, plane + hw, T(0));
          col2im_plane_add(cols.data() + c * s.fold.kernel[0] * s.fold.kernel[1] * l, s.fold,
                           s.plane, plane);
        }
      }
    }
  });
}

// grad_weight_g = sum over samples of windows_g @ im2col(image_g)^T.
template <class T>
void weight_gradient(const Sides& s, const T* windows, const T* image, T* grad_weight) {
  const int64_t cw = s.window_channels / s.groups, ci = s.image_channels / s.groups;
  const int64_t k = s.k(), l = s.windows(), hw = s.plane.h * s.plane.w;
  const int64_t taps = s.fold.kernel[0] * s.fold.kernel[1];
  std::fill(grad_weight, grad_weight + s.window_channels * k, T(0));
  std::vector<T> cols(static_cast<size_t>(k * l));
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      for (int64_t c = 0; c < ci; ++c) {
        im2col_plane(image + (n * s.image_channels + g * ci + c) * hw, s.fold, s.plane,
                     cols.data() + c * taps * l);
      }
      gemm(false, true, cw, k, l, windows + (n * s.window_channels + g * cw) * l, l, cols.data(),
           l, T(1), grad_weight + g * cw * k, k);
    }
  }
}

// grad_bias[o] = the sum of grad_out over samples and positions of channel o.
template <class T>
void bias_gradient(const T* grad_out, int64_t batch, int64_t channels, int64_t positions,
                   T* grad_bias) {
  for (int64_t o = 0; o < channels; ++o) {
    double sum = 0;
    for (int64_t n = 0; n < batch; ++n) {
      const T* p = grad_out + (n * channels + o) * positions;
      for (int64_t i = 0; i < positions; ++i) sum += p[i];
    }
    grad_bias[o] = static_cast<T>(sum);
  }
}

// The weight and bias gradients, which a convolution and a transposed one share: `windows`
// and `image` are grad_out and input in one order or the other.
void parameter_gradients(const Sides& s, const Tensor& windows, const Tensor& image,
                         const Tensor& grad_out, const Tensor& grad_weight,
                         const Tensor& grad_bias) {
  visit_floating(image.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if (grad_weight.defined()) {
      const Tensor w = contiguous_as(windows, dtype_v<T>);
      const Tensor x = contiguous_as(image, dtype_v<T>);
      write_as<T>(grad_weight, [&](T* dw) { weight_gradient(s, w.data<T>(), x.data<T>(), dw); });
    }
    if (grad_bias.defined()) {
      const Tensor dy = contiguous_as(grad_out, dtype_v<T>);
      write_as<T>(grad_bias, [&](T* db) {
        bias_gradient(dy.data<T>(), dy.int_size(0), dy.int_size(1),
                      dy.int_size(2) * dy.int_size(3), db);
      });
    }
  });
}

void scatter_out(const Sides& s, const Tensor& windows, const Tensor& weight,
                 const Tensor& image) {
  visit_floating(image.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor y = contiguous_as(windows, dtype_v<T>);
    const Tensor w = contiguous_as(weight, dtype_v<T>);
    write_as<T>(image, [&](T* x) { scatter(s, y.data<T>(), w.data<T>(), x); });
  });
}

}  // namespace

void conv_transpose2d_out(const Tensor& input, const Tensor& weight, const Tensor& bias,
                          const ConvGeometry& geometry, const Tensor& out) {
  scatter_out(sides(input, out, weight, geometry), input, weight, out);
  if (!bias.defined()) return;
  visit_floating(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor b = contiguous_as(bias, dtype_v<T>);
    const Tensor y = contiguous_as(out, dtype_v<T>);
    const int64_t channels = out.int_size(1), hw = out.int_size(2) * out.int_size(3);
    write_as<T>(out, [&](T* p) {
      const T* from = y.data<T>();
      for (int64_t i = 0; i < out.int_size(0) * channels * hw; ++i) {
        p[i] = static_cast<T>(from[i] + b.data<T>()[(i / hw) % channels]);
      }
    });
  });
}

void conv2d_backward_out(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                         const ConvGeometry& geometry, const Tensor& grad_input,
                         const Tensor& grad_weight, const Tensor& grad_bias) {
  const Sides s = sides(grad_out, input, weight, geometry);
  if (grad_input.defined()) scatter_out(s, grad_out, weight, grad_input);
  parameter_gradients(s, grad_out, input, grad_out, grad_weight, grad_bias);
}

void conv_transpose2d_backward_out(const Tensor& grad_out, const Tensor& input,
                                   const Tensor& weight, const ConvGeometry& geometry,
                                   const Tensor& grad_input, const Tensor& grad_weight,
                                   const Tensor& grad_bias) {
  // The input gradient of a transposed convolution is the convolution of grad_out.
  if (grad_input.defined()) {
    conv2d_out(grad_out, weight, Tensor(),
               Conv2dParams{.stride = geometry.stride,
                            .padding = geometry.padding,
                            .dilation = geometry.dilation,
                            .groups = geometry.groups},
               grad_input);
  }
  parameter_gradients(sides(input, grad_out, weight, geometry), input, grad_out, grad_out,
                      grad_weight, grad_bias);
}

}  // namespace xport::kernels::cpu
