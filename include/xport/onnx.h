#pragma once
// Moved to xport/onnx/onnx.h; this path keeps existing code compiling for one release.
#include "xport/onnx/onnx.h"
