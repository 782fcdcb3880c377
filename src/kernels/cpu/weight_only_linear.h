#pragma once
// Matrix products by integer weights with float activations (weight-only quantization: int8
// per output channel, int4 per group of input features), for a decoder's steps, whose time is
// the reading of the weights: a quarter (int8) or an eighth (int4) of float32's bytes. Each
// weight is converted to float in registers and multiplied there; nothing is dequantized to
// memory.
//
//   out[m, n] = sum_g scales[n, g] * sum_{k in group g} input[m, k] * (q[n, k] - zero[n, g])
//               + bias[n]

#include <cstdint>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// int4 values (int8 [N, K] in [-8, 7], K a multiple of 128) packed two to a byte as the
/// kernel reads them: uint8 [N, K / 2]; each run of 128 values along K is 16 little-endian
/// 32-bit words, word i holding value i + 16p, plus 8, in bits 4p .. 4p + 3 (p = 0 .. 7).
Tensor pack_int4(const Tensor& values);

/// The product above. weight: int8 [N, K] (bits 8), pack_int4's uint8 [N, K / 2] (bits 4), or
/// bfloat16 [N, K] (bits 16, float32 compute: scales and zero points undefined);
/// scales float32 [N, K / group_size] contiguous; zero_points float32 like scales, or undefined
/// (zeros); bias float32 [N] or undefined; input float32 [M, K] contiguous; out float32 [M, N]
/// contiguous. With bits 4, K is a multiple of 128 and group_size of 16. Runs on the kernels'
/// threads. `bf16_compute` (bits 16 only): as torch.autocast runs a linear layer in bfloat16,
/// input rounded to bfloat16 and the result (sums and bias in float32) rounded to bfloat16
/// (bf16_dot.h: vdpbf16ps where the CPU has AVX512-BF16, the same products in float32 elsewhere).
void weight_only_linear_out(const Tensor& input, const Tensor& weight, int64_t bits,
                            const Tensor& scales, const Tensor& zero_points, int64_t group_size,
                            const Tensor& bias, const Tensor& out, bool bf16_compute = false);

}  // namespace xport::kernels::cpu
