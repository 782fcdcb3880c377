#pragma once
// Moved to xport/ops/linalg_functions.h; this path keeps existing code compiling for one release.
#include "xport/ops/linalg_functions.h"
