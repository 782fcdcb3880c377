#include <sys/mman.h>

#include <cstdlib>

#include "xport/tensor/tensor.h"

namespace xport {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr int64_t kHugeBytes = int64_t{4} << 20;  // buffers from this size on

}  // namespace

std::shared_ptr<Storage> Storage::allocate(int64_t nbytes) {
  XPORT_CHECK(nbytes >= 0, Internal, "Storage::allocate: negative size ", nbytes);
  // Large buffers (packed weights, arenas) in 2 MiB pages where the kernel gives them on request
  // (transparent huge pages in "madvise" mode): a decode step streams hundreds of MB, whose
  // 4 KiB pages would cost a TLB miss every 4 KiB.
  const size_t alignment = nbytes >= kHugeBytes ? kHugePage : 64;
  // aligned_alloc needs a size that is a multiple of the alignment; never ask for 0 bytes.
  const size_t rounded = (static_cast<size_t>(nbytes) + alignment - 1) / alignment * alignment;
  void* data = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  XPORT_CHECK(data != nullptr, InvalidInput, "out of memory allocating ", nbytes, " bytes");
  if (alignment == kHugePage) ::madvise(data, rounded, MADV_HUGEPAGE);  // advice: may be ignored
  return std::shared_ptr<Storage>(new Storage(data, nbytes, nullptr));
}

std::shared_ptr<Storage> Storage::wrap(void* data, int64_t nbytes, std::shared_ptr<void> owner) {
  XPORT_CHECK(owner != nullptr, Internal, "Storage::wrap needs an owner");
  return std::shared_ptr<Storage>(new Storage(data, nbytes, std::move(owner)));
}

Storage::~Storage() {
  if (!owner_) std::free(data_);
}

}  // namespace xport
