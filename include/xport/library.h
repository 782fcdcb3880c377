#pragma once
// Moved to xport/ops/library.h; this path forwards to it for one release.
#include "xport/ops/library.h"
