#pragma once
// Moved to xport/exportdb/exportdb.h; this path forwards to it for one release.
#include "xport/exportdb/exportdb.h"
