#pragma once
// Moved to xport/onnx/onnx.h; this path forwards to it for one release.
#include "xport/onnx/onnx.h"
