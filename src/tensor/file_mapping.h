#pragma once
// Read-only files mapped into memory, for loaders whose tensors view the file in place.

#include <cstdint>
#include <memory>
#include <string>

namespace xport::detail {

/// Maps the regular file at `path` privately (copy-on-write: writing through a tensor never
/// changes the file); the mapping lives as long as the returned pointer (null for an empty
/// file). `size` receives the file's size. Errors are InvalidInput prefixed with `caller`
/// (`read_safetensors(model.safetensors)`).
std::shared_ptr<void> map_file(const std::string& path, int64_t& size, const std::string& caller);

/// strerror for `err`.
std::string errno_text(int err);

}  // namespace xport::detail
