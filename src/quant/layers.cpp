#include "quant/layers.h"

#include <algorithm>

#include "ir/ir_util.h"

namespace xport::quant::detail {
namespace {

using ir::detail::ref_of;

bool is_convolution(const ir::Node& node) {
  if (node.op() == &find_op("aten::conv2d")) return true;
  if (node.op() != &find_op("aten::convolution")) return false;
  const bool* transposed = std::get_if<bool>(&node.arg("transposed").value);
  return transposed != nullptr && !*transposed && node.outputs()[0].sizes.size() == 4;
}

// A 2-d transpose: t, transpose.int(0, 1) (either order, or negative) or permute([1, 0]).

}  // namespace

std::optional<Layer> layer_of(ir::Node* node) {
  if (node->kind() != ir::NodeKind::Call) return std::nullopt;
  if (node->outputs().size() != 1 || node->outputs()[0].dtype != DType::Float32) {
    return std::nullopt;
  }
  const OpDef* op = node->op();
  Layer layer{.node = node, .input_arg = {}, .input = {}, .weight_arg = {}, .weight = {},
              .weight_in_out = false};
  bool through_transpose = false;
  if (op == &find_op("aten::linear")) {
    layer.input_arg = "input";
    layer.weight_arg = "weight";
  } else if (is_convolution(*node)) {
    layer.convolution = true;
    layer.input_arg = "input";
    layer.weight_arg = "weight";
  } else if (op == &find_op("aten::addmm")) {
    layer.input_arg = "mat1";
    layer.weight_arg = "mat2";
    through_transpose = true;
  } else if (op == &find_op("aten::mm")) {
    layer.input_arg = "self";
    layer.weight_arg = "mat2";
    through_transpose = true;
  } else if (op == &find_op("aten::matmul")) {
    layer.input_arg = "self";
    layer.weight_arg = "other";
    through_transpose = true;
  } else {
    return std::nullopt;
  }
  const ir::ValueRef* input = ref_of(node->arg(layer.input_arg));
  const ir::ValueRef* weight = ref_of(node->arg(layer.weight_arg));
  if (input == nullptr || weight == nullptr) return std::nullopt;
  layer.input = *input;
  layer.weight_reader = node;
  if (through_transpose && weight->node->kind() == ir::NodeKind::Placeholder) {
    layer.weight_in_out = weight->node->outputs()[0].sizes.size() == 2;
    if (!layer.weight_in_out) return std::nullopt;
  } else if (through_transpose) {
    if (!ir::detail::is_matrix_transpose(*weight->node)) return std::nullopt;
    layer.weight_reader = const_cast<ir::Node*>(weight->node);
    layer.weight_arg = "self";
    weight = ref_of(layer.weight_reader->arg("self"));
    if (weight == nullptr) return std::nullopt;
  }
  layer.weight = *weight;
  return layer;
}

std::optional<InputSpec> float_weight(const Layer& layer,
                                      const xport::detail::ProgramParts& parts) {
  const ir::Node* w = layer.weight.node;
  if (w->kind() != ir::NodeKind::Placeholder || w->outputs()[0].dtype != DType::Float32) {
    return std::nullopt;
  }
  const auto spec = std::find_if(parts.signature.inputs.begin(), parts.signature.inputs.end(),
                                 [&](const InputSpec& s) { return s.name == w->name(); });
  if (spec == parts.signature.inputs.end() || spec->kind == InputSpec::Kind::UserInput) {
    return std::nullopt;
  }
  return *spec;
}

bool is_quantized(const Layer& layer) {
  const ir::Node* w = layer.weight.node;
  if (layer.weight_in_out) return false;  // prepare writes t(dequantize(...)): a transpose
  if (w->kind() != ir::NodeKind::Call) return false;
  return w->op() == &find_op("quantized_decomposed::dequantize_per_channel") ||
         w->op() == &find_op("quantized_decomposed::dequantize_per_channel_group");
}

std::vector<ir::Argument> with_arg(const ir::Node& node, std::string_view name,
                                   ir::Argument value) {
  std::vector<ir::Argument> args = node.args();
  const int at = node.op()->arg_position(name);
  XPORT_CHECK(at >= 0, Internal, node.op()->qualified_name, " has no argument ", name);
  args[static_cast<size_t>(at)] = std::move(value);
  return args;
}

std::string identifier(const std::string& target) {
  std::string out = target;
  std::replace(out.begin(), out.end(), '.', '_');
  return out;
}

}  // namespace xport::quant::detail
