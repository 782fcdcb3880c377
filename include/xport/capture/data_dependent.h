#pragma once
/// \file Facts about values only the data decides. Under capture, `x.item_int()` is an unbacked
/// symbol (u0): it has no example value, so a shape decision on it cannot be made by tracing.
/// These functions say what holds instead: export uses the fact to decide, and the program
/// checks it when it runs (an `aten::_assert_scalar` node). Outside capture they check at once.

#include <cstdint>
#include <limits>
#include <string>

#include "xport/core/sym.h"

namespace xport {

/// `condition` holds (`check(u0 >= 0)`, `check(u0 <= x.size(0))`). Under capture: a fact when it
/// involves an unbacked symbol (asserted at run time), else a guard on the example's sizes.
/// Otherwise it must be true (InvalidInput with `message`).
void check(const SymBool& condition, const std::string& message = "");
/// `value` is a size: min <= value <= max (min at least 0).
void constrain_as_size(const SymInt& value, int64_t min = 0,
                       int64_t max = std::numeric_limits<int64_t>::max());
/// min <= value <= max.
void constrain_as_value(const SymInt& value, int64_t min, int64_t max);

}  // namespace xport
