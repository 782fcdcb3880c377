#pragma once
// Moved to xport/ops/reduction_functions.h; this path keeps existing code compiling for one release.
#include "xport/ops/reduction_functions.h"
