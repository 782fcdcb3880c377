#pragma once
// Moved to xport/quant/quant.h; this path keeps existing code compiling for one release.
#include "xport/quant/quant.h"
