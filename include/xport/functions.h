#pragma once
// Moved to xport/ops/functions.h; this path forwards to it for one release.
#include "xport/ops/functions.h"
