#pragma once
// Moved to xport/ops/npy.h; this path keeps existing code compiling for one release.
#include "xport/ops/npy.h"
