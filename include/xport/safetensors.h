#pragma once
// Moved to xport/nn/safetensors.h; this path keeps existing code compiling for one release.
#include "xport/nn/safetensors.h"
