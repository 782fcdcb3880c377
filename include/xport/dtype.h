#pragma once
// Moved to xport/core/dtype.h; this path forwards to it for one release.
#include "xport/core/dtype.h"
