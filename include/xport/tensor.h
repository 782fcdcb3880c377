#pragma once
// Moved to xport/tensor/tensor.h; this path forwards to it for one release.
#include "xport/tensor/tensor.h"
