#pragma once
// Moved to xport/core/expr.h; this path forwards to it for one release.
#include "xport/core/expr.h"
