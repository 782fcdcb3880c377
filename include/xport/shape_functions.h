#pragma once
// Moved to xport/ops/shape_functions.h; this path forwards to it for one release.
#include "xport/ops/shape_functions.h"
