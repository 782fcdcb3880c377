#pragma once
// col2im (F.fold): sums sliding-window columns back into an image.

#include <array>

#include "xport/tensor.h"

namespace xport::kernels::cpu {

/// Window geometry, each as (height, width).
struct Fold {
  std::array<int64_t, 2> kernel, dilation, padding, stride;
};

/// out [N, C, H, W] = the sum of each column of cols [N, C*kh*kw, L] into the window it came
/// from (L windows in row-major order); places outside the image are dropped.
void col2im_out(const Tensor& cols, const Fold& fold, const Tensor& out);

}  // namespace xport::kernels::cpu
