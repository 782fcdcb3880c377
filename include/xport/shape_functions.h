#pragma once
/// \file Free functions of the shape op family (ATen names), thin calls into the op registry.

#include <optional>
#include <string>
#include <vector>

#include "xport/tensor.h"

namespace xport {

}  // namespace xport
