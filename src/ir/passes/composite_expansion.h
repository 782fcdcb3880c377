#pragma once
// Composite expansion: a call of an op that runs as its decomposition (PyTorch's training IR
// keeps aten::layer_norm, aten::matmul, aten::dropout, aten::reshape, ...; a custom op with a
// decomposition and no kernel) is replaced by the calls its decomposition makes, traced over the
// call's own symbolic sizes. The runtime then plans those calls like any other, with their
// kernels, instead of running the decomposition eagerly on every run.

#include <functional>
#include <string>

#include "xport/core/expr.h"
#include "xport/ir/ir.h"

namespace xport::ir::passes {

struct ExpansionStats {
  int expanded = 0;  ///< calls replaced by their decomposition's calls
  /// Calls left as they were: their decomposition needs a fact about the sizes that the
  /// symbols' ranges do not settle, sizes only data decides, or gives a result of another layout
  /// than the call records.
  int kept = 0;
  std::string first_kept;  ///< the first kept call and why, for messages
};

/// Expands each such call of `graph` (not its subgraphs'). `range_of` gives each symbol's range
/// (the program's contract): a decision the decomposition takes on sizes must hold over it, so
/// the expanded graph is valid wherever the program is. The results keep the layouts the calls
/// recorded; values nobody reads any more are removed.
ExpansionStats expand_composites(Graph& graph,
                                 const std::function<sym::Range(sym::ExprPtr)>& range_of);

}  // namespace xport::ir::passes
