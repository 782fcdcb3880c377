#pragma once
// Many rows (a prompt, a batch) of a bfloat16 linear layer on oneDNN's bfloat16 matmul (brgemm
// with AVX512-BF16 or AMX): the products of torch.autocast's bfloat16 linear layer at twice
// float32's rate. The weights are read as they are ([N, K], the layer's), not packed.

#include <cstdint>

namespace xport::kernels::cpu {

/// out [M, N] float32 = x [M, K] @ w[N, K]^T (+ bias [N]), x and w bfloat16 bits, sums in
/// float32. Returns false, computing nothing, where oneDNN has no fast kernel for it here (no
/// AVX512-BF16 or AMX under XPORT_MAX_CPU_ISA: it would run its reference code).
bool bf16_matmul(const uint16_t* x, int64_t m, const uint16_t* w, int64_t k, int64_t n,
                 const float* bias, float* out);

}  // namespace xport::kernels::cpu
