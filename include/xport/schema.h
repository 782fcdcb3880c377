#pragma once
// Moved to xport/ops/schema.h; this path keeps existing code compiling for one release.
#include "xport/ops/schema.h"
