#pragma once
// Moved to xport/tensor/result_type.h; this path keeps existing code compiling for one release.
#include "xport/tensor/result_type.h"
