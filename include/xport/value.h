#pragma once
// Moved to xport/tensor/value.h; this path forwards to it for one release.
#include "xport/tensor/value.h"
