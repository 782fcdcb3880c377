#pragma once
// A graph input the program updates in place (a buffer mutation): shared by the program layer,
// which writes it back, and the passes that make the update in place.

#include <cstddef>

namespace xport::ir {

/// Placeholder `input` takes the value of graph output `output`.
struct InputUpdate {
  size_t input = 0;
  size_t output = 0;
};

}  // namespace xport::ir
