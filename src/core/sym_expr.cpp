#include "core/sym_expr.h"

#include "xport/core/error.h"

namespace xport::sym {

ExprPtr apply(SymOp op, ExprPtr a, ExprPtr b) {
  switch (op) {
    case SymOp::Add:
      return add(a, b);
    case SymOp::Sub:
      return sub(a, b);
    case SymOp::Mul:
      return mul(a, b);
    case SymOp::FloorDiv:
      return floor_div(a, b);
    case SymOp::Mod:
      return mod(a, b);
    case SymOp::Min:
      return min(a, b);
    case SymOp::Max:
      return max(a, b);
    case SymOp::Eq:
      return eq(a, b);
    case SymOp::Ne:
      return ne(a, b);
    case SymOp::Lt:
      return lt(a, b);
    case SymOp::Le:
      return le(a, b);
    case SymOp::Gt:
      return gt(a, b);
    case SymOp::Ge:
      return ge(a, b);
    case SymOp::And:
      return logical_and(a, b);
    case SymOp::Or:
      return logical_or(a, b);
    case SymOp::TrueDiv:
      break;
  }
  XPORT_FAIL(UnsupportedOp, "true division of symbolic sizes (", str(a), " / ", str(b),
             ") is not supported; use floor division (/ on SymInt) instead");
}

}  // namespace xport::sym
