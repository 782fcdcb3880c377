#pragma once
// Moved to xport/core/dtype.h; this path keeps existing code compiling for one release.
#include "xport/core/dtype.h"
