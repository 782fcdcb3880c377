#pragma once
// Moved to xport/runtime/frame_pool.h; this path forwards to it for one release.
#include "xport/runtime/frame_pool.h"
