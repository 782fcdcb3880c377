#include "tools/xport/inspect.h"

#include <cstdio>
#include <iterator>
#include <string>

#include "tools/xport/program_inputs.h"
#include "xport/core/dtype.h"
#include "xport/core/expr.h"
#include "xport/ir/ir.h"
#include "xport/onnx/onnx.h"
#include "xport/program/exported_program.h"
#include "xport/serde/archive.h"

namespace xport::tools {
namespace {

// "161 tensors, 497.8 MB (497759232 bytes)"; the exact count only where the rounding hides it.
std::string tensors_and_bytes(int64_t count, int64_t bytes) {
  std::string s = std::to_string(count) + (count == 1 ? " tensor, " : " tensors, ");
  s += bytes_str(bytes);
  if (bytes >= 1000) s += " (" + std::to_string(bytes) + " bytes)";
  return s;
}

}  // namespace

int run_inspect(const std::string& path, std::ostream& out) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) {
    out << onnx::describe(path);
    return 0;
  }
  ArchiveInfo info;
  const ExportedProgram program = load(path, info);
  out << program.to_string() << "\narchive: " << path << "\n";
  out << "  schema version:   " << info.schema_major << "." << info.schema_minor << "\n";
  out << "  archive version:  " << (info.archive_version.empty() ? "(none)" : info.archive_version)
      << "\n";
  out << "  xport contract:   "
      << (info.written_by_xport ? "present (written by xport)"
                                : "absent (rebuilt from the graph's input metadata)")
      << "\n";
  out << "  weights:          " << tensors_and_bytes(info.weight_count, info.weight_bytes) << "\n";
  out << "  constants:        " << tensors_and_bytes(info.constant_count, info.constant_bytes)
      << "\n";
  out << "  file size:        " << bytes_str(info.file_bytes);
  if (info.file_bytes >= 1000) out << " (" << info.file_bytes << " bytes)";
  out << "\ninput contract:\n";
  if (program.contract().empty()) out << "  (no user inputs)\n";
  for (const InputContract& c : program.contract()) {
    out << "  " << c.name << ": " << contract_type(c) << "\n";
  }
  return 0;
}

}  // namespace xport::tools
