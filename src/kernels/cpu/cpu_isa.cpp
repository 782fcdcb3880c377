#include "kernels/cpu/cpu_isa.h"

#include <hwy/targets.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "kernels/cpu/vec_math.h"
#include "xport/error.h"

namespace xport::kernels::cpu {
namespace {

IsaCap parse_cap(const char* text) {
  std::string name = text == nullptr ? "" : text;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (name.empty() || name == "ALL") return IsaCap::All;
  if (name == "AVX512_CORE" || name == "AVX512") return IsaCap::Avx512Core;
  if (name == "AVX2") return IsaCap::Avx2;
  if (name == "SSE41" || name == "SSE4.1") return IsaCap::Sse41;
  XPORT_FAIL(InvalidInput, "XPORT_MAX_CPU_ISA=", text,
             " is not an instruction set the kernels know: write SSE41, AVX2, AVX512_CORE or ALL "
             "(or leave it unset for the best this CPU has)");
}

dnnl::cpu_isa onednn_cap(IsaCap cap) {
  switch (cap) {
    case IsaCap::Sse41:
      return dnnl::cpu_isa::sse41;
    case IsaCap::Avx2:
      return dnnl::cpu_isa::avx2;
    case IsaCap::Avx512Core:
      return dnnl::cpu_isa::avx512_core;
    case IsaCap::All:
      break;
  }
  return dnnl::cpu_isa::all;
}

// Highway's targets better than the cap (a lower bit is a better target). Highway keeps
// a fallback it can always call, so the portable loops run below AVX2.
int64_t highway_targets_above(IsaCap cap) {
  switch (cap) {
    case IsaCap::Sse41:
      return HWY_SSE4 - 1;
    case IsaCap::Avx2:
      return HWY_AVX2 - 1;
    case IsaCap::Avx512Core:
      return HWY_AVX3 - 1;
    case IsaCap::All:
      break;
  }
  return 0;
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
  hwy::DisableTargets(highway_targets_above(cap));
  // oneDNN takes a ceiling only before its first primitive; ONEDNN_MAX_CPU_ISA, when also set,
  // is read by oneDNN itself and may be lower still. A compiled model's library applies the cap
  // again, in a process whose oneDNN its host has capped already: then the ISA is checked.
  if (dnnl::set_max_cpu_isa(onednn_cap(cap)) != dnnl::status::success) {
    // oneDNN's ISAs are bit sets, each holding the ones below it.
    const auto effective = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    XPORT_CHECK((effective & ~static_cast<unsigned>(onednn_cap(cap))) == 0, Internal,
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

std::string isa_cap_name(IsaCap cap) {
  switch (cap) {
    case IsaCap::Sse41:
      return "SSE41";
    case IsaCap::Avx2:
      return "AVX2";
    case IsaCap::Avx512Core:
      return "AVX512_CORE";
    case IsaCap::All:
      break;
  }
  return "ALL";
}

std::string highway_target() { return vec::dispatched_target(); }

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
