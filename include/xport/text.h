#pragma once
// Moved to xport/text/text.h; this path keeps existing code compiling for one release.
#include "xport/text/text.h"
