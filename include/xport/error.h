#pragma once
// Moved to xport/core/error.h; this path forwards to it for one release.
#include "xport/core/error.h"
