#pragma once
// Moved to xport/aot/aot.h; this path forwards to it for one release.
#include "xport/aot/aot.h"
