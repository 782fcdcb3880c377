#pragma once
// Moved to xport/nn/models.h; this path forwards to it for one release.
#include "xport/nn/models.h"
