#pragma once
// What kind of op an OpDef is, read from its schema in one place (the runtime, eager dispatch
// and the runtime's passes ask the same question).

#include "xport/op_registry.h"

namespace xport::ops {

/// The argument a view op's first output shares memory with (`Tensor(a)` without `!`), or -1
/// when the op is not a view (an in-place op's output aliases what it writes: not a view).
inline int view_base(const OpDef& op) {
  const Schema& s = op.parsed;
  const int aliased = s.aliased_argument(0);
  return aliased >= 0 && !s.returns[0].is_write ? aliased : -1;
}

}  // namespace xport::ops
