#pragma once
// `--ops LIB.so`: shared libraries that register custom ops (an xport::Library at static
// initialisation), loaded into the tool before it reads an archive.

#include <string>
#include <vector>

namespace xport::tools {

/// Loads each library; InvalidInput naming the file when it cannot be loaded or registers no op.
void load_op_libraries(const std::vector<std::string>& paths);

}  // namespace xport::tools
