#pragma once
// Moved to xport/core/scalar.h; this path forwards to it for one release.
#include "xport/core/scalar.h"
