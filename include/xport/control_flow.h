#pragma once
// Moved to xport/capture/control_flow.h; this path forwards to it for one release.
#include "xport/capture/control_flow.h"
