#pragma once
// Moved to xport/ops/nn_functions.h; this path forwards to it for one release.
#include "xport/ops/nn_functions.h"
