#pragma once
// Moved to xport/core/scalar.h; this path keeps existing code compiling for one release.
#include "xport/core/scalar.h"
