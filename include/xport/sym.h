#pragma once
// Moved to xport/core/sym.h; this path keeps existing code compiling for one release.
#include "xport/core/sym.h"
