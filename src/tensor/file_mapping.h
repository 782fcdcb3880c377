#pragma once
// Read-only files mapped into memory, for loaders whose tensors view the file in place.

#include <cstdint>
#include <memory>
#include <string>

#include "xport/tensor/tensor.h"

namespace xport::detail {

/// Maps the regular file at `path` privately (copy-on-write: writing through a tensor never
/// changes the file); the mapping lives as long as the returned pointer (null for an empty
/// file). `size` receives the file's size. Errors are InvalidInput prefixed with `caller`
/// (`read_safetensors(model.safetensors)`).
std::shared_ptr<void> map_file(const std::string& path, int64_t& size, const std::string& caller);

/// Hands the whole pages of [data, data + nbytes) back to the kernel when they lie inside a
/// mapping map_file made and are still there: the next read faults them in again from the file.
/// For loaders' constants that a kernel has packed into a copy of its own (the copy is what
/// runs; the file's pages would only add to the resident size). Only for bytes never written:
/// a written page would read the file's bytes again. Elsewhere (allocated memory, an archive
/// embedded in a library) it does nothing. Returns the bytes released.
int64_t release_file_pages(const void* data, int64_t nbytes);

/// release_file_pages over the bytes `t` spans (its elements and the gaps between them).
int64_t release_file_pages(const Tensor& t);

/// strerror for `err`.
std::string errno_text(int err);

}  // namespace xport::detail
