#pragma once
// Moved to xport/quant/quant.h; this path forwards to it for one release.
#include "xport/quant/quant.h"
