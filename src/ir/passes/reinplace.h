#pragma once
// A backend writes a buffer the program updates where it lies: the functional update whose
// result is the buffer's new value (index_copy(cache, ...)) becomes its in-place form
// (index_copy_(cache, ...)) when nothing reads the old value after it, so a run copies neither
// the buffer into a new tensor nor the new tensor back into the buffer.

#include <vector>

#include "ir/input_update.h"
#include "xport/ir/ir.h"

namespace xport::ir::passes {

/// Rewrites each update (graph input -> graph output, from the signature) that is safe to do
/// in place, then removes the functional nodes it replaced. Returns the graph outputs now
/// computed in place.
std::vector<size_t> reinplace_updates(Graph& graph, const std::vector<InputUpdate>& updates);

}  // namespace xport::ir::passes
