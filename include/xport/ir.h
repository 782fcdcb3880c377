#pragma once
// Moved to xport/ir/ir.h; this path keeps existing code compiling for one release.
#include "xport/ir/ir.h"
