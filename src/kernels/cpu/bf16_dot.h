#pragma once
// Matrix-vector products on bfloat16 inputs and weights with float32 sums, as torch.autocast
// runs a linear layer in bfloat16: on CPUs with AVX512-BF16 by its dot-product instruction
// (vdpbf16ps, 32 products a step), elsewhere by widening both to float32 (every product of two
// bfloat16 values is exact in float32, so the two differ only in the order of the sums).

#include <cstdint>

namespace xport::kernels::cpu {

/// Whether bf16_dot_rows runs here: AVX512-BF16, and XPORT_MAX_CPU_ISA not capping it.
bool has_bf16_dot();

/// out[r * n + j] = sum_k x[r * k_len + k] * w[j * k_len + k] (+ bias[j]) for j in [j0, j1) and
/// r < rows; x and w bfloat16 bits, row-major; bias may be null. Requires has_bf16_dot().
void bf16_dot_rows(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t k_len,
                   const float* bias, int64_t n, int64_t j0, int64_t j1, float* out);

}  // namespace xport::kernels::cpu
