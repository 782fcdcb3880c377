#pragma once
// Moved to xport/ops/shape_functions.h; this path keeps existing code compiling for one release.
#include "xport/ops/shape_functions.h"
