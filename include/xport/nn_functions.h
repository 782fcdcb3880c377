#pragma once
// Moved to xport/ops/nn_functions.h; this path keeps existing code compiling for one release.
#include "xport/ops/nn_functions.h"
