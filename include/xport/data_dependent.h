#pragma once
// Moved to xport/capture/data_dependent.h; this path keeps existing code compiling for one release.
#include "xport/capture/data_dependent.h"
