#pragma once
// Prints the runtime's execution plan of a program as one C++ translation unit: the plan's memory
// baked in (an arena per run, pooled; views made once where their base is), a direct call of the
// named typed kernel per step (xport/kernels.h), the runtime's packed convolutions and matrix
// products, elementwise chains as chunked loops, and the constants the load-time passes made as
// bytes the library embeds. The runtime checks inputs and writes back updates around it
// (xport/aot_model.h), so a compiled model behaves as runtime::Program does.

#include <string>
#include <vector>

#include "xport/program.h"

namespace xport::aot {

/// The headers the generated code includes, first: what compile() precompiles.
inline constexpr const char* kGeneratedIncludes =
    "#include <cstdint>\n#include <limits>\n#include <optional>\n\n"
    "#include \"xport/aot_model.h\"\n#include \"xport/kernels.h\"\n";

struct GeneratedModel {
  std::string source;                    ///< the translation unit
  std::vector<unsigned char> constants;  ///< embedded bytes (xport_aot_constants)
  int64_t kernel_calls = 0;              ///< typed kernel calls per run
  int64_t packed_calls = 0;              ///< packed convolutions and matrix products per run
  int64_t chains = 0;                    ///< elementwise chains per run
  int64_t views = 0;                     ///< views made per run (the rest are made once)
  int64_t arena_bytes = 0;
};

/// Throws UnsupportedOp when `program`'s sizes are symbolic (not generated yet).
void refuse_symbolic_sizes(const ExportedProgram& program);

/// Generates `program` (as loaded from the archive the library will read: weights' layouts are
/// checked against it at load), fused as runtime::Options::fuse does when `fuse`. Throws
/// UnsupportedOp naming the first node it cannot generate, before anything is compiled.
GeneratedModel generate(const ExportedProgram& program, bool fuse);

}  // namespace xport::aot
