#pragma once
// Moved to xport/tensor/result_type.h; this path forwards to it for one release.
#include "xport/tensor/result_type.h"
