#pragma once
// Moved to xport/ops/op_registry.h; this path forwards to it for one release.
#include "xport/ops/op_registry.h"
