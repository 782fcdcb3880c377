#pragma once
// What prepare and convert look for: the linear layers and 2-d convolutions of a program whose
// weights are float32 parameters or buffers, in the forms programs hold them: aten::linear
// (PyTorch's training IR), addmm / mm / matmul over the weight transposed (xport's capture,
// core ATen), aten::conv2d and aten::convolution (not transposed).

#include <optional>
#include <string>
#include <string_view>

#include "program/program_parts.h"

namespace xport::quant::detail {

struct Layer {
  ir::Node* node = nullptr;  ///< the product or convolution
  bool convolution = false;
  std::string_view input_arg;  ///< the argument it reads its activation from
  ir::ValueRef input;
  ir::Node* weight_reader = nullptr;  ///< the node reading the weight: `node`, or a transpose
  std::string_view weight_arg;        ///< the weight_reader's argument that holds it
  ir::ValueRef weight;                ///< the weight as it is read (a placeholder in prepare)
  /// The product reads the weight as it is, [in, out] (GPT-2's Conv1D), not transposed.
  bool weight_in_out = false;
};

/// The layer `node` is (whatever its weight is), or nothing.
std::optional<Layer> layer_of(ir::Node* node);

/// The signature entry of a layer's weight when it is a float32 parameter, buffer or constant
/// of `parts` (the layers prepare quantizes).
std::optional<InputSpec> float_weight(const Layer& layer, const xport::detail::ProgramParts& parts);

/// Whether a layer reads its weight through dequantize_per_channel(_group): prepare's work.
bool is_quantized(const Layer& layer);

/// `node`'s arguments with `name` set to `value`.
std::vector<ir::Argument> with_arg(const ir::Node& node, std::string_view name,
                                   ir::Argument value);

/// `target` as a graph name: dots become underscores (`fc1.weight` -> `fc1_weight`).
std::string identifier(const std::string& target);

}  // namespace xport::quant::detail
