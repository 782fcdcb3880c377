#pragma once
// Moved to xport/ops/linalg_functions.h; this path forwards to it for one release.
#include "xport/ops/linalg_functions.h"
