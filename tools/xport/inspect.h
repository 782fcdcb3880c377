#pragma once
// `xport inspect FILE`: what a PT2 archive holds. The program as it prints (graph, signature,
// range constraints), then the archive's versions, the sizes of its weights and constants, and
// the input contract the program checks at run time.

#include <ostream>
#include <string>

namespace xport::tools {

/// Loads the archive at `path` and describes it on `out`; returns the exit status (0). Load
/// errors propagate as xport::Error (InvalidArchive for a corrupt file).
int run_inspect(const std::string& path, std::ostream& out);

}  // namespace xport::tools
