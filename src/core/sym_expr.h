#pragma once
// SymNode arithmetic on expressions, shared by the nodes that hold a sym::ExprPtr: the capture
// layer's shape environment, and the passes that trace a decomposition over a program's symbols.

#include "xport/core/expr.h"
#include "xport/core/sym.h"

namespace xport::sym {

/// The expression `a op b`. Throws UnsupportedOp for TrueDiv: sizes divide by floor division.
ExprPtr apply(SymOp op, ExprPtr a, ExprPtr b);

}  // namespace xport::sym
