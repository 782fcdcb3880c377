#pragma once
// Moved to xport/exportdb/exportdb.h; this path keeps existing code compiling for one release.
#include "xport/exportdb/exportdb.h"
