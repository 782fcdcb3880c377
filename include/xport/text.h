#pragma once
// Moved to xport/text/text.h; this path forwards to it for one release.
#include "xport/text/text.h"
