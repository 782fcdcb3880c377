#pragma once
// Moved to xport/ir/ir.h; this path forwards to it for one release.
#include "xport/ir/ir.h"
