#pragma once
// Moved to xport/core/sym.h; this path forwards to it for one release.
#include "xport/core/sym.h"
