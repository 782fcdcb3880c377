#pragma once
// Moved to xport/core/error.h; this path keeps existing code compiling for one release.
#include "xport/core/error.h"
