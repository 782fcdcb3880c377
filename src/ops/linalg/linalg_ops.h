#pragma once
// The linalg family's registration, split by job: matrix products and convolution.

namespace xport::ops {

void register_matmul_ops();
void register_conv_ops();

}  // namespace xport::ops
