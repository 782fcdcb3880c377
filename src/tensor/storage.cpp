#include <cstdlib>

#include "xport/tensor.h"

namespace xport {

std::shared_ptr<Storage> Storage::allocate(int64_t nbytes) {
  XPORT_CHECK(nbytes >= 0, Internal, "Storage::allocate: negative size ", nbytes);
  // aligned_alloc needs a size that is a multiple of the alignment; never ask for 0 bytes.
  const size_t rounded = (static_cast<size_t>(nbytes) + 63) / 64 * 64;
  void* data = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  XPORT_CHECK(data != nullptr, InvalidInput, "out of memory allocating ", nbytes, " bytes");
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
