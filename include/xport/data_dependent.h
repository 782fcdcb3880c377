#pragma once
// Moved to xport/capture/data_dependent.h; this path forwards to it for one release.
#include "xport/capture/data_dependent.h"
