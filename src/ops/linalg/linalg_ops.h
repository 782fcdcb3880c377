#pragma once
// The linalg family's registration, split by job: matrix products, convolution and distances.

namespace xport::ops {

void register_matmul_ops();
void register_conv_ops();
void register_distance_ops();

}  // namespace xport::ops
