// libFuzzer harness for the tensor files xport reads from users: .npy (xport run's inputs, the
// Python package's) and safetensors (weights). The bytes are written to a file and read as
// their own magic says (NumPy's "\x93NUMPY", else safetensors), as a user's file would be. Any
// bytes must either load or throw xport::Error; a crash, a sanitizer report, a leak, a hang or
// any other exception is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "xport/core/error.h"
#include "xport/ops/npy.h"
#include "xport/nn/safetensors.h"

namespace {

// One file per fuzzing process, in memory where /dev/shm exists.
const std::string& scratch_path() {
  static const std::string path = std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                                  "/xport_tensor_file_fuzzer." + std::to_string(getpid());
  return path;
}

bool write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = scratch_path();
  if (!write_file(path, data, size)) __builtin_trap();  // the harness itself failed
  const bool npy = size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0;
  try {
    if (npy) {
      const xport::Tensor t = xport::load_npy(path);
      (void)t.int_numel();
    } else {
      const xport::SafetensorsContents contents = xport::read_safetensors(path);
      for (const auto& [name, t] : contents.tensors) (void)t.int_numel();
    }
  } catch (const xport::Error&) {
    // rejected with a message: the expected outcome for most inputs
  }
  std::remove(path.c_str());
  return 0;
}
