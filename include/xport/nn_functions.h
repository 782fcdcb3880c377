#pragma once
/// \file Free functions of the nn op family (ATen names), thin calls into the op registry.

#include <optional>
#include <string>
#include <vector>

#include "xport/tensor.h"

namespace xport {

}  // namespace xport
