#pragma once
// Moved to xport/nn/safetensors.h; this path forwards to it for one release.
#include "xport/nn/safetensors.h"
