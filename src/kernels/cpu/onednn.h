#pragma once
// What the kernels that call oneDNN primitives share: the CPU engine and per-thread buffers.

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/linear_activation.h"
#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// The CPU engine, made after the ISA cap is applied (oneDNN takes a cap only before its first
/// primitive).
inline dnnl::engine& onednn_engine() {
  static dnnl::engine e = [] {
    apply_cpu_isa_cap();
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return e;
}

/// oneDNN's sgemm (row-major, as dnnl_sgemm) once the ISA cap is applied.
inline dnnl_status_t onednn_sgemm(char transa, char transb, int64_t m, int64_t n, int64_t k,
                                  float alpha, const float* a, int64_t lda, const float* b,
                                  int64_t ldb, float beta, float* c, int64_t ldc) {
  apply_cpu_isa_cap();
  return dnnl_sgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/// Records which implementation oneDNN chose for a primitive it made ("brg:avx512_core",
/// "jit:avx2", "ref:any", ...), so tests can require that none is its slow reference code.
void note_implementation(const dnnl::primitive_desc_base& pd);

/// Whether oneDNN chose its reference code ("ref:any", "ref_int8:any", ...) for `pd`: correct,
/// but often 100x slower than its other kernels.
inline bool is_reference_implementation(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

/// Reorders `from` into `to` once (weights packed at load), the scratchpad the caller's: oneDNN's
/// cache gives identical primitives one shared object, whose own scratchpad two threads would
/// both write.
void reorder_now(const dnnl::memory& from, const dnnl::memory& to);

/// oneDNN's eltwise algorithm for an activation (undef for None).
dnnl::algorithm eltwise_algorithm(LinearActivation activation);

/// One entry per distinct primitive kind and implementation made so far in this process,
/// e.g. "convolution jit:avx2", in the order first made.
std::vector<std::string> onednn_implementations();

/// The entries of onednn_implementations() that are oneDNN's reference code.
std::vector<std::string> onednn_reference_implementations();

/// A per-thread buffer for blocked copies and scratchpads, reused across calls (fresh large
/// allocations would page-fault on every call); trim() drops it above kKeepBytes.
struct ScratchBuffer {
  static constexpr int64_t kKeepBytes = int64_t{64} << 20;
  std::shared_ptr<Storage> storage;
  void* get(size_t bytes) {
    const int64_t n = static_cast<int64_t>(std::max<size_t>(bytes, 64));
    if (!storage || storage->nbytes() < n) storage = Storage::allocate(n);
    return storage->data();
  }
  void trim() {
    if (storage && storage->nbytes() > kKeepBytes) storage.reset();
  }
};

}  // namespace xport::kernels::cpu
