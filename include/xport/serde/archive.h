#pragma once
/// \file One-file archives in PyTorch's PT2 format (a zip of JSON and raw tensor data): save an
/// ExportedProgram, load it back with its weights memory-mapped, and describe an archive.
/// docs/ARCHIVE.md documents the layout and every field.

#include <cstdint>
#include <string>
#include <vector>

#include "xport/program/exported_program.h"

namespace xport {

/// What an archive holds besides the program (for `xport inspect` and tools).
struct ArchiveInfo {
  int64_t schema_major = 0;  ///< torch.export serialized-schema version of models/model.json
  int64_t schema_minor = 0;
  std::string archive_version;  ///< the `archive_version` entry
  int64_t weight_count = 0;     ///< parameters and persistent buffers (data/weights)
  int64_t weight_bytes = 0;     ///< bytes of their stored storages (shared storage counted once)
  int64_t constant_count = 0;   ///< lifted constants and non-persistent buffers (data/constants)
  int64_t constant_bytes = 0;
  int64_t file_bytes = 0;
  bool written_by_xport = false;  ///< the xport contract metadata is present
  /// The root module's call signature (module_call_graph), for callers that rebuild its Python
  /// structure: the pytree specs of its inputs ((args, kwargs)) and outputs as the JSON text
  /// torch.export writes (`[1, {"type": "builtins.tuple", ...}]`), and its argument names.
  /// Empty when the archive has none.
  std::string in_spec;
  std::string out_spec;
  std::vector<std::string> forward_arg_names;
};

/// Writes `program` to `path` (through a temporary file renamed into place). Entries are stored
/// uncompressed with their data 64-byte aligned; saving the same program twice gives the same
/// bytes.
void save(const ExportedProgram& program, const std::string& path);

/// Reads an archive written by save() or by torch.export.save (schema major 8). Weights are
/// views of the memory-mapped file, not copies. Every field is validated before use: a corrupt
/// or hostile file is an InvalidArchive error naming the field, an unknown op UnsupportedOp.
ExportedProgram load(const std::string& path);
/// Same, also filling `info`.
ExportedProgram load(const std::string& path, ArchiveInfo& info);

}  // namespace xport
