#pragma once
// `xport decompose FILE OUT`: the archive's program with every op outside the core set replaced
// by its decomposition, saved as a new archive.

#include <ostream>
#include <string>

namespace xport::tools {

/// Loads `in`, runs the core decompositions, saves `out`, and prints the op counts before and
/// after on `report`; returns the exit status (0). Errors propagate as xport::Error.
int run_decompose(const std::string& in, const std::string& out, std::ostream& report);

}  // namespace xport::tools
