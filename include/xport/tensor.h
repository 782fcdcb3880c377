#pragma once
// Moved to xport/tensor/tensor.h; this path keeps existing code compiling for one release.
#include "xport/tensor/tensor.h"
