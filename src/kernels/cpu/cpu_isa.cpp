#include "kernels/cpu/cpu_isa.h"

#include <hwy/targets.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

#include "kernels/cpu/vec_math.h"
#include "xport/core/error.h"

namespace xport::kernels::cpu {
namespace {

// Each cap: its spellings (the first is its name), oneDNN's ceiling, and Highway's targets
// better than it (a lower bit is a better target; Highway keeps a fallback it can always call,
// so the portable loops run below AVX2).
struct CapInfo {
  IsaCap cap;
  std::vector<std::string> spellings;
  dnnl::cpu_isa onednn;
  int64_t highway_above;
};

const std::vector<CapInfo>& caps() {
  static const std::vector<CapInfo> kCaps = {
      {IsaCap::Sse41, {"SSE41", "SSE4.1"}, dnnl::cpu_isa::sse41, HWY_SSE4 - 1},
      {IsaCap::Avx2, {"AVX2"}, dnnl::cpu_isa::avx2, HWY_AVX2 - 1},
      {IsaCap::Avx512Core, {"AVX512_CORE", "AVX512"}, dnnl::cpu_isa::avx512_core, HWY_AVX3 - 1},
      {IsaCap::All, {"ALL", ""}, dnnl::cpu_isa::all, 0}};
  return kCaps;
}

const CapInfo& info(IsaCap cap) {
  return *std::find_if(caps().begin(), caps().end(),
                       [cap](const CapInfo& c) { return c.cap == cap; });
}

IsaCap parse_cap(const char* text) {
  std::string name = text == nullptr ? "" : text;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const CapInfo& c : caps()) {
    if (std::find(c.spellings.begin(), c.spellings.end(), name) != c.spellings.end()) return c.cap;
  }
  XPORT_FAIL(InvalidInput, "XPORT_MAX_CPU_ISA=", text,
             " is not an instruction set the kernels know: write SSE41, AVX2, AVX512_CORE or ALL "
             "(or leave it unset for the best this CPU has)");
}

std::string onednn_isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41:
      return "sse41";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "other";
  }
}

IsaCap apply_once() {
  const IsaCap cap = parse_cap(std::getenv("XPORT_MAX_CPU_ISA"));
  if (cap == IsaCap::All) return cap;
  hwy::DisableTargets(info(cap).highway_above);
  // oneDNN takes a ceiling only before its first primitive; ONEDNN_MAX_CPU_ISA, when also set,
  // is read by oneDNN itself and may be lower still. A compiled model's library applies the cap
  // again, in a process whose oneDNN its host has capped already: then the ISA is checked.
  if (dnnl::set_max_cpu_isa(info(cap).onednn) != dnnl::status::success) {
    // oneDNN's ISAs are bit sets, each holding the ones below it.
    const auto effective = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    XPORT_CHECK((effective & ~static_cast<unsigned>(info(cap).onednn)) == 0, Internal,
                "XPORT_MAX_CPU_ISA=", isa_cap_name(cap), ": oneDNN had chosen its kernels (",
                onednn_isa_name(dnnl::get_effective_cpu_isa()),
                ") before the cap could be applied");
  }
  return cap;
}

}  // namespace

void apply_cpu_isa_cap() { (void)cpu_isa_cap(); }

IsaCap cpu_isa_cap() {
  static const IsaCap cap = apply_once();
  return cap;
}

std::string isa_cap_name(IsaCap cap) { return info(cap).spellings.front(); }

std::string highway_target() { return vec::dispatched_target(); }

bool onednn_exact_int8() {
  apply_cpu_isa_cap();
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  constexpr auto kVnni512 = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_vnni) &
                            ~static_cast<unsigned>(dnnl_cpu_isa_avx512_core);
  constexpr auto kVnni256 = static_cast<unsigned>(dnnl_cpu_isa_avx2_vnni) &
                            ~static_cast<unsigned>(dnnl_cpu_isa_avx2);
  return (isa & (kVnni512 | kVnni256)) != 0;
}

std::string onednn_isa() {
  apply_cpu_isa_cap();
  return onednn_isa_name(dnnl::get_effective_cpu_isa());
}

std::string kernel_isa() {
  std::string text = "Highway " + highway_target() + ", oneDNN " + onednn_isa();
  if (cpu_isa_cap() != IsaCap::All) {
    text += ", capped at " + isa_cap_name(cpu_isa_cap()) + " by XPORT_MAX_CPU_ISA";
  }
  return text;
}

}  // namespace xport::kernels::cpu
