#pragma once
// Moved to xport/capture/export.h; this path keeps existing code compiling for one release.
#include "xport/capture/export.h"
