#include "kernels/cpu/bf16_dot.h"

#include <immintrin.h>

#include "kernels/cpu/cpu_isa.h"

namespace xport::kernels::cpu {
namespace {

#define XPORT_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

XPORT_BF16_TARGET inline __m512bh load_bf16(const uint16_t* p) {
  return reinterpret_cast<__m512bh>(_mm512_loadu_si512(p));
}

// The first `count` (< 32) values at p, zeros after them.
XPORT_BF16_TARGET inline __m512bh load_bf16_part(const uint16_t* p, int64_t count) {
  const auto mask = static_cast<__mmask32>((uint64_t{1} << count) - 1);
  return reinterpret_cast<__m512bh>(_mm512_maskz_loadu_epi16(mask, p));
}

XPORT_BF16_TARGET float dot(const uint16_t* x, const uint16_t* w, int64_t k_len) {
  __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
  __m512 a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
  int64_t k = 0;
  for (; k + 128 <= k_len; k += 128) {  // four chains: the instruction's latency hidden
    a0 = _mm512_dpbf16_ps(a0, load_bf16(x + k), load_bf16(w + k));
    a1 = _mm512_dpbf16_ps(a1, load_bf16(x + k + 32), load_bf16(w + k + 32));
    a2 = _mm512_dpbf16_ps(a2, load_bf16(x + k + 64), load_bf16(w + k + 64));
    a3 = _mm512_dpbf16_ps(a3, load_bf16(x + k + 96), load_bf16(w + k + 96));
  }
  for (; k + 32 <= k_len; k += 32) a0 = _mm512_dpbf16_ps(a0, load_bf16(x + k), load_bf16(w + k));
  if (k < k_len) {
    a1 = _mm512_dpbf16_ps(a1, load_bf16_part(x + k, k_len - k), load_bf16_part(w + k, k_len - k));
  }
  // Summed through memory: GCC 12 warns (wrongly) on _mm512_reduce_add_ps's undefined halves.
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  float sum = 0;
  for (const float v : lanes) sum += v;
  return sum;
}

}  // namespace

bool has_bf16_dot() {
  static const bool supported = __builtin_cpu_supports("avx512bf16") &&
                                __builtin_cpu_supports("avx512bw") &&
                                __builtin_cpu_supports("avx512vl");
  return supported && cpu_isa_cap() == IsaCap::All;
}

void bf16_dot_rows(const uint16_t* x, int64_t rows, const uint16_t* w, int64_t k_len,
                   const float* bias, int64_t n, int64_t j0, int64_t j1, float* out) {
  for (int64_t j = j0; j < j1; ++j) {
    const float b = bias != nullptr ? bias[j] : 0.0f;
    for (int64_t r = 0; r < rows; ++r) {
      out[r * n + j] = dot(x + r * k_len, w + j * k_len, k_len) + b;
    }
  }
}

}  // namespace xport::kernels::cpu
