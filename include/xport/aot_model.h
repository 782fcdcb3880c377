#pragma once
// Moved to xport/runtime/aot_model.h; this path forwards to it for one release.
#include "xport/runtime/aot_model.h"
