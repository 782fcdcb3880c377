#pragma once
// Moved to xport/ops/op_registry.h; this path keeps existing code compiling for one release.
#include "xport/ops/op_registry.h"
