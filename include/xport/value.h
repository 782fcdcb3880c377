#pragma once
// Moved to xport/tensor/value.h; this path keeps existing code compiling for one release.
#include "xport/tensor/value.h"
