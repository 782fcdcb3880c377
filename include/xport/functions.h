#pragma once
// Moved to xport/ops/functions.h; this path keeps existing code compiling for one release.
#include "xport/ops/functions.h"
