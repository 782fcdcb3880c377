#pragma once
// col2im (F.fold): sums sliding-window columns back into an image.

#include <array>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// Window geometry, each as (height, width).
struct Fold {
  std::array<int64_t, 2> kernel, dilation, padding, stride;
};

/// out [N, C, H, W] = the sum of each column of cols [N, C*kh*kw, L] into the window it came
/// from (L windows in row-major order); places outside the image are dropped.
void col2im_out(const Tensor& cols, const Fold& fold, const Tensor& out);

/// One channel's plane [h, w] and its kh * kw rows of bh * bw windows (row-major), the loops
/// under col2im and the convolution gradients; T is float or double.
struct FoldPlane {
  int64_t h, w;    // the image
  int64_t bh, bw;  // the windows along each dim
};
/// image += the rows summed into the windows they came from.
template <class T>
void col2im_plane_add(const T* rows, const Fold& fold, const FoldPlane& plane, T* image);
/// rows = each window's elements (0 outside the image).
template <class T>
void im2col_plane(const T* image, const Fold& fold, const FoldPlane& plane, T* rows);

}  // namespace xport::kernels::cpu
