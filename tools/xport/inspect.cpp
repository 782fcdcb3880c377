#include "tools/xport/inspect.h"

#include <cstdio>
#include <iterator>
#include <string>

#include "xport/archive.h"
#include "xport/dtype.h"
#include "xport/expr.h"
#include "xport/ir.h"
#include "xport/program.h"

namespace xport::tools {
namespace {

// Decimal units, as file managers and `ls -h --si` print them: 497.8 MB.
std::string human_bytes(int64_t bytes) {
  static const char* const kUnits[] = {"kB", "MB", "GB", "TB"};
  if (bytes < 1000) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes) / 1000;
  size_t unit = 0;
  while (value >= 999.95 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", value, kUnits[unit]);
  return buf;
}

// "161 tensors, 497.8 MB (497759232 bytes)"; the exact count only where the rounding hides it.
std::string tensors_and_bytes(int64_t count, int64_t bytes) {
  std::string s = std::to_string(count) + (count == 1 ? " tensor, " : " tensors, ");
  s += human_bytes(bytes);
  if (bytes >= 1000) s += " (" + std::to_string(bytes) + " bytes)";
  return s;
}

// One contract entry as the graph prints values: `f32[s0, 8]`, `[f32[2, 3], i64[4]]`, `7`.
std::string contract_type(const InputContract& c) {
  switch (c.kind) {
    case InputContract::Kind::Tensor:
      return ir::TensorSpec::contiguous(c.dtype, c.sizes).str();
    case InputContract::Kind::TensorList: {
      std::string s = "[";
      for (size_t i = 0; i < c.elements.size(); ++i) {
        s += (i ? ", " : "") + contract_type(c.elements[i]);
      }
      return s + "]";
    }
    case InputContract::Kind::Int:
      return "int = " + std::to_string(c.int_value) + " (specialised)";
    case InputContract::Kind::Float: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", c.float_value);
      return std::string("float = ") + buf + " (specialised)";
    }
    case InputContract::Kind::Bool:
      return std::string("bool = ") + (c.int_value ? "True" : "False") + " (specialised)";
  }
  return "?";
}

}  // namespace

int run_inspect(const std::string& path, std::ostream& out) {
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
  out << "  file size:        " << human_bytes(info.file_bytes);
  if (info.file_bytes >= 1000) out << " (" << info.file_bytes << " bytes)";
  out << "\ninput contract:\n";
  if (program.contract().empty()) out << "  (no user inputs)\n";
  for (const InputContract& c : program.contract()) {
    out << "  " << c.name << ": " << contract_type(c) << "\n";
  }
  return 0;
}

}  // namespace xport::tools
