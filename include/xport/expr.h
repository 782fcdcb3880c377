#pragma once
// Moved to xport/core/expr.h; this path keeps existing code compiling for one release.
#include "xport/core/expr.h"
