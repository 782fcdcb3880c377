#pragma once
// Moved to xport/ops/schema.h; this path forwards to it for one release.
#include "xport/ops/schema.h"
