#pragma once
// Constant folding: a call whose every tensor argument is a constant (a weight, a buffer nothing
// updates, or an earlier folded result) and whose other arguments are known integers runs once,
// here, and its results become constants of the graph.

#include "ir/passes/constant_graph.h"

namespace xport::ir::passes {

/// Folds, in order, each such call that is deterministic and returns tensors: views always
/// (their results share the constant's memory), other ops when their results take no more bytes
/// than their constant arguments, or at most 4 KiB (folding never multiplies the weights'
/// memory). Calls that bind unbacked symbols, assert, mutate or take subgraphs stay. Returns
/// how many calls were folded; the folded calls are removed.
int fold_constants(ConstantGraph& g);

}  // namespace xport::ir::passes
