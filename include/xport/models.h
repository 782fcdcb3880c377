#pragma once
// Moved to xport/nn/models.h; this path keeps existing code compiling for one release.
#include "xport/nn/models.h"
