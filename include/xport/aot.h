#pragma once
// Moved to xport/aot/aot.h; this path keeps existing code compiling for one release.
#include "xport/aot/aot.h"
