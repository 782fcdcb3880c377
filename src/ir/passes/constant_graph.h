#pragma once
// A graph together with what is known of its inputs before any call: the tensor behind each
// placeholder that holds the same value on every call (weights, buffers nothing updates,
// lifted constants). The passes that fold and fuse need the values, not just the specs.

#include <string>
#include <vector>

#include "xport/ir/ir.h"
#include "xport/tensor/tensor.h"

namespace xport::ir::passes {

struct ConstantGraph {
  Graph graph;
  /// One per placeholder, in graph order; undefined where the value changes from call to call
  /// (user inputs, buffers the program updates). Passes append to it as they add constants.
  std::vector<Tensor> constants;

  /// The constant behind `arg` (a placeholder with a value), else an undefined tensor.
  Tensor constant(const Argument& arg) const;
  /// Adds a placeholder holding `value` (named `base`, made unique) and returns its value.
  ValueRef add_constant(const std::string& base, const Tensor& value);
};

/// The integer behind an expression; throws when it is symbolic (a pass then leaves the node
/// alone): for ir::argument_value.
int64_t constant_int(sym::ExprPtr e);

}  // namespace xport::ir::passes
