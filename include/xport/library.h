#pragma once
// Moved to xport/ops/library.h; this path keeps existing code compiling for one release.
#include "xport/ops/library.h"
