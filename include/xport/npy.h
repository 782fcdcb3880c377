#pragma once
// Moved to xport/ops/npy.h; this path forwards to it for one release.
#include "xport/ops/npy.h"
