#pragma once
// What the kernels that call oneDNN primitives share: the CPU engine and per-thread buffers.

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <memory>

#include "xport/tensor.h"

namespace xport::kernels::cpu {

inline dnnl::engine& onednn_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

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
