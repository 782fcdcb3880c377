#pragma once
// The linalg family's registration, split by job: matrix products, convolution and distances.

#include <vector>

#include "xport/ops/op_registry.h"

namespace xport::ops {

/// aten::convolution's result sizes from the arguments it reads by name (input, weight, bias,
/// stride, padding, dilation, groups; output_padding when transposed), every size check with
/// it: the one shape logic of convolutions, which the quantized one shares.
std::vector<SymInt> convolution_sizes(const OpArgs& args, bool transposed);

void register_matmul_ops();
void register_conv_ops();
void register_distance_ops();

}  // namespace xport::ops
