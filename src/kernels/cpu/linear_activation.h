#pragma once
// The activation a packed matrix product applies to its result (PackedLinear,
// PackedQuantizedLinear): none, ReLU, or GELU exact (erf) or tanh-approximated.

#include <string>

namespace xport::kernels::cpu {

enum class LinearActivation { None, Relu, GeluErf, GeluTanh };

/// From the fused ops' `activation` names: "relu", "gelu", "gelu_tanh" (anything else: None).
inline LinearActivation linear_activation(const std::string& name) {
  return name == "relu"        ? LinearActivation::Relu
         : name == "gelu"      ? LinearActivation::GeluErf
         : name == "gelu_tanh" ? LinearActivation::GeluTanh
                               : LinearActivation::None;
}

}  // namespace xport::kernels::cpu
