#pragma once
// The C++ spelling of a dtype's enumerator (`Int64` for DType::Int64): for generated code, and
// for messages that tell a C++ user what to write.

#include "xport/core/dtype.h"

namespace xport {

const char* dtype_enumerator(DType dtype);

}  // namespace xport
