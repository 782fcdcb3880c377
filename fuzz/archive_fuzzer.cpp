// libFuzzer harness for the PT2 archive loader. Any bytes must either load or throw
// xport::Error; a crash, a sanitizer report, a leak, a hang or any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "serde/serialize.h"
#include "xport/core/error.h"

namespace {

// load() views a memory-mapped file, so tensor data sits at the file's (64-byte) alignment.
constexpr std::align_val_t kAlignment{64};

// An aligned copy of exactly `size` bytes (no rounding up), so AddressSanitizer reports a read
// one byte past the input.
std::shared_ptr<const void> aligned_copy(const uint8_t* data, size_t size) {
  void* bytes = ::operator new(size, kAlignment);
  if (size > 0) std::memcpy(bytes, data, size);
  return std::shared_ptr<const void>(
      bytes, [](const void* p) { ::operator delete(const_cast<void*>(p), kAlignment); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::shared_ptr<const void> owner = aligned_copy(data, size);
  const auto* bytes = static_cast<const uint8_t*>(owner.get());
  std::unique_ptr<xport::ExportedProgram> program;
  try {
    xport::ArchiveInfo info;
    program = std::make_unique<xport::ExportedProgram>(
        xport::serde::load_bytes(bytes, size, owner, "fuzz input", info));
  } catch (const xport::Error&) {
    return 0;  // rejected with a message: the expected outcome for most inputs
  }
  // A loaded program has passed every check (its constructor runs the verifier), so printing it
  // must not throw: an error here escapes and is reported. run() is left out: too slow.
  (void)program->to_string();
  return 0;
}
