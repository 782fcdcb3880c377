#pragma once
// Moved to xport/capture/export.h; this path forwards to it for one release.
#include "xport/capture/export.h"
