#pragma once
// The instruction sets the kernels may use. Two dispatchers pick kernels for the CPU at hand:
// Highway's (our SIMD loops) and oneDNN's (GEMM, convolution). XPORT_MAX_CPU_ISA caps both at
// once, so the AVX2 paths an AVX2-only CPU takes can be run and tested on an AVX-512 machine.

#include <string>

namespace xport::kernels::cpu {

/// The ceilings XPORT_MAX_CPU_ISA accepts (case-insensitive): SSE41, AVX2, AVX512_CORE, ALL.
enum class IsaCap { Sse41, Avx2, Avx512Core, All };

/// Reads XPORT_MAX_CPU_ISA and applies it to Highway and oneDNN, once per process; every kernel
/// that dispatches calls it first (later calls cost one load). An unknown value is an
/// InvalidInput error naming the accepted ones.
void apply_cpu_isa_cap();

/// The cap in force: XPORT_MAX_CPU_ISA's, or IsaCap::All when it is unset.
IsaCap cpu_isa_cap();

/// "AVX2" for IsaCap::Avx2, and so on: the spelling XPORT_MAX_CPU_ISA takes.
std::string isa_cap_name(IsaCap cap);

/// What the kernels run on, e.g. "Highway AVX3, oneDNN avx512_core_amx" (", capped at AVX2 by
/// XPORT_MAX_CPU_ISA" when a cap is set): for benchmarks and tools to print beside figures.
std::string kernel_isa();

/// Whether oneDNN's integer products accumulate exactly here: VNNI (or AMX) under the cap. On
/// AVX2 and AVX-512 without VNNI, its u8 x s8 kernels sum pairs of products in saturating int16
/// (vpmaddubsw), which 8-bit activations and weights overflow.
bool onednn_exact_int8();

/// Highway's chosen target (AVX3, AVX2, EMU128, ...) and oneDNN's effective ISA, as names.
std::string highway_target();
std::string onednn_isa();

}  // namespace xport::kernels::cpu

/// HWY_DYNAMIC_DISPATCH(fn) once the cap is applied: Highway picks its target at the first call.
#define XPORT_HWY_DISPATCH(fn) \
  (::xport::kernels::cpu::apply_cpu_isa_cap(), HWY_DYNAMIC_DISPATCH(fn))
