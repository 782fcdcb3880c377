#pragma once
// The linalg ops' out-variant kernels that adapt their arguments: one named function per op, its
// parameters the schema's arguments in order, then one tensor per result. Registration binds
// them (XPORT_OP_KERNEL) and a code generator can call them. Arguments are valid: the op's meta
// function checked them. (The matrix products bind xport::kernels::cpu's functions directly.)

#include <optional>
#include <vector>

#include "xport/tensor.h"

namespace xport::ops {

void convolution_out(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                     const std::vector<int64_t>& dilation, bool transposed,
                     const std::vector<int64_t>& output_padding, int64_t groups,
                     const Tensor& out);
void _cdist_forward_out(const Tensor& x1, const Tensor& x2, double p,
                        std::optional<int64_t> compute_mode, const Tensor& out);
void _pdist_forward_out(const Tensor& self, double p, const Tensor& out);

}  // namespace xport::ops
