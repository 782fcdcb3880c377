#pragma once
// Moved to xport/serde/archive.h; this path keeps existing code compiling for one release.
#include "xport/serde/archive.h"
