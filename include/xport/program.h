#pragma once
// Moved to xport/program/exported_program.h; this path keeps existing code compiling for one release.
#include "xport/program/exported_program.h"
