#pragma once
// `xport demo`: the main job on the bundled model (today: eager execution of a small MLP).

#include <ostream>

namespace xport::tools {

int run_demo(std::ostream& out);

}  // namespace xport::tools
