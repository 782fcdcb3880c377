#include "tools/xport/op_libraries.h"

#include <dlfcn.h>

#include "xport/core/error.h"
#include "xport/ops/op_registry.h"

namespace xport::tools {

void load_op_libraries(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    const size_t before = all_ops().size();
    // A path without a slash would be searched for like a system library; the user means a file.
    const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
    // RTLD_GLOBAL: one library's ops may use another's symbols.
    if (dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      const char* why = dlerror();
      XPORT_FAIL(InvalidInput, "--ops ", path, ": cannot load it: ", why ? why : "unknown error");
    }
    XPORT_CHECK(all_ops().size() > before, InvalidInput, "--ops ", path,
                ": loaded, but it registered no op. Define the ops with an xport::Library at "
                "static initialisation (a namespace-scope variable), and do not link xport into "
                "the library: the tool provides xport's symbols, and a second copy would "
                "register into its own registry");
  }
}

}  // namespace xport::tools
