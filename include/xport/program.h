#pragma once
// Moved to xport/program/exported_program.h; this path forwards to it for one release.
#include "xport/program/exported_program.h"
