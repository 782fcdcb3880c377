#pragma once
// Moved to xport/ops/reduction_functions.h; this path forwards to it for one release.
#include "xport/ops/reduction_functions.h"
