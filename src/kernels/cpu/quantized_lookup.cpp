#include "kernels/cpu/quantized_lookup.h"

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "xport/core/error.h"

namespace xport::kernels::cpu {
namespace {

// y[i] = table[x[i] ^ flip], one value at a time.
void look_up_scalar(const uint8_t* x, uint8_t* y, int64_t n, const uint8_t* table, uint8_t flip) {
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i] ^ flip];
}

// The same, 64 values at a time with AVX-512 VBMI's byte permutes: each of two vpermi2b looks
// the low 7 bits up in half of the table (two registers), the top bit chooses between them.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void look_up_vbmi(
    const uint8_t* x, uint8_t* y, int64_t n, const uint8_t* table, uint8_t flip) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  const __m512i flips = _mm512_set1_epi8(static_cast<char>(flip));
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i index = _mm512_xor_si512(_mm512_loadu_si512(x + i), flips);
    const __m512i low = _mm512_permutex2var_epi8(t0, index, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, index, t3);
    _mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high));
  }
  look_up_scalar(x + i, y + i, n - i, table, flip);
}

// VBMI where the CPU has it and XPORT_MAX_CPU_ISA does not cap the kernels below it.
bool use_vbmi() {
  static const bool vbmi = __builtin_cpu_supports("avx512vbmi");
  apply_cpu_isa_cap();
  return vbmi && cpu_isa_cap() == IsaCap::All;
}

}  // namespace

void quantized_lookup_out(const Tensor& self, const Tensor& table, const Tensor& out) {
  const auto is_8bit = [](DType d) { return d == DType::UInt8 || d == DType::Int8; };
  XPORT_CHECK(is_8bit(self.dtype()) && table.int_numel() == 256 && table.dtype() == out.dtype() &&
                  is_8bit(out.dtype()),
              Internal, "xport::quantized_lookup: operands the meta function refuses");
  const Tensor x = contiguous_as(self, self.dtype());
  std::array<uint8_t, 256> entries;
  std::memcpy(entries.data(), contiguous_as(table, table.dtype()).raw_data(), entries.size());
  // An int8 value's bits, their top bit flipped, are its index (-128 -> 0, 127 -> 255).
  const uint8_t flip = self.dtype() == DType::Int8 ? 0x80 : 0;
  const auto* in = static_cast<const uint8_t*>(x.raw_data());
  const bool vbmi = use_vbmi();
  const auto look_up = [&](uint8_t* y) {
    parallel_for(0, x.int_numel(), 1 << 16, [&](int64_t begin, int64_t end) {
      if (vbmi) {
        look_up_vbmi(in + begin, y + begin, end - begin, entries.data(), flip);
      } else {
        look_up_scalar(in + begin, y + begin, end - begin, entries.data(), flip);
      }
    });
  };
  // int8 results are the table's bytes as they are.
  if (out.dtype() == DType::UInt8) {
    write_as<uint8_t>(out, look_up);
  } else {
    write_as<int8_t>(out, [&](int8_t* y) { look_up(reinterpret_cast<uint8_t*>(y)); });
  }
}

}  // namespace xport::kernels::cpu
