#pragma once
// Moved to xport/serde/archive.h; this path forwards to it for one release.
#include "xport/serde/archive.h"
