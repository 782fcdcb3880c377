#pragma once
// Prints the runtime's execution plan of a program as one C++ translation unit: a direct call of
// the named typed kernel per step (xport/kernels.h) with its literal arguments, the runtime's
// packed convolutions and matrix products, elementwise chains as chunked loops, each subgraph of
// control flow (cond, map, while_loop) as a function the op calls, and which values share a frame's
// arena (made once per frame and pooled) or are made per run. Sizes, strides, arena offsets and the
// arguments the symbols decide are read from the runtime's plan of each run's symbol values, which
// the library makes once per tuple of them (aot::LoadedGraph, the graph prepared at load as the
// runtime prepares it). The runtime checks inputs and writes back updates around it
// (xport/runtime/aot_model.h), so a compiled model behaves as runtime::Program does.

#include <string>
#include <vector>

#include "xport/program/exported_program.h"

namespace xport::aot {

/// The headers the generated code includes, first: what compile() precompiles.
inline constexpr const char* kGeneratedIncludes =
    "#include <cstdint>\n#include <limits>\n#include <optional>\n\n"
    "#include \"xport/runtime/aot_model.h\"\n#include \"xport/kernels.h\"\n";

struct GeneratedModel {
  std::string source;                    ///< the translation unit
  int64_t kernel_calls = 0;              ///< typed kernel calls per run
  int64_t packed_calls = 0;              ///< packed convolutions and matrix products per run
  int64_t chains = 0;                    ///< elementwise chains per run
  int64_t runtime_steps = 0;  ///< steps the runtime runs: data-dependent sizes
  int64_t control_flow_steps = 0;  ///< higher-order ops, their subgraphs generated functions
  int64_t subgraph_functions = 0;  ///< those functions (nested ones included)
  int64_t views = 0;                     ///< views made per run (the rest are made once)
  int64_t arena_bytes = 0;
};

/// Generates `program` (as loaded from the archive the library will read: weights' layouts are
/// checked against it at load), fused as runtime::Options::fuse does when `fuse`. Throws
/// UnsupportedOp naming the first node it cannot generate, before anything is compiled.
GeneratedModel generate(const ExportedProgram& program, bool fuse);

}  // namespace xport::aot
