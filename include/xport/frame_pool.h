#pragma once
// Moved to xport/runtime/frame_pool.h; this path keeps existing code compiling for one release.
#include "xport/runtime/frame_pool.h"
