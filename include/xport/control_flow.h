#pragma once
// Moved to xport/capture/control_flow.h; this path keeps existing code compiling for one release.
#include "xport/capture/control_flow.h"
