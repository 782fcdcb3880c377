#pragma once
// Moved to xport/runtime/aot_model.h; this path keeps existing code compiling for one release.
#include "xport/runtime/aot_model.h"
