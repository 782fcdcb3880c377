// quant::to_bf16: float32 weights stored as bfloat16, converted back where the program reads
// them; linear layers, unless asked for float32 compute, computed as torch.autocast(bfloat16)
// computes them.
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/ir_util.h"
#include "program/program_parts.h"
#include "quant/layers.h"
#include "xport/quant/quant.h"

namespace xport::quant {
namespace {

ir::TensorSpec with_dtype(ir::TensorSpec spec, DType dtype) {
  spec.dtype = dtype;
  return spec;
}

// _to_copy(value, spec.dtype) before the node at `position`.
const ir::Node* converted(ir::Graph& g, size_t position, ir::Argument value, ir::TensorSpec spec,
                          ir::NodeMeta meta = {}) {
  const DType dtype = spec.dtype;
  return g.insert_call(position, find_op("aten::_to_copy"),
                       {std::move(value), dtype, ir::Argument(), ir::Argument(), ir::Argument(),
                        false, ir::Argument()},
                       {std::move(spec)}, std::move(meta));
}

// The argument a matrix product reads its weight from (layer_of's forms).
std::string_view weight_arg_of(const OpDef* op) {
  if (op == &find_op("aten::linear")) return "weight";
  if (op == &find_op("aten::matmul")) return "other";
  return "mat2";  // addmm, mm
}

// The bfloat16 input a layer's weight was stored as: the weight reads _to_copy(that, float32).
const ir::Node* stored_bf16(const detail::Layer& layer) {
  const ir::ValueRef* weight = ir::detail::ref_of(layer.weight_reader->arg(layer.weight_arg));
  const ir::Node* widened = weight != nullptr ? weight->node : nullptr;
  if (widened == nullptr || widened->kind() != ir::NodeKind::Call ||
      widened->op() != &find_op("aten::_to_copy")) {
    return nullptr;
  }
  const ir::ValueRef* stored = ir::detail::ref_of(widened->arg("self"));
  if (stored == nullptr || stored->node->kind() != ir::NodeKind::Placeholder ||
      stored->node->outputs()[0].dtype != DType::BFloat16) {
    return nullptr;
  }
  return stored->node;
}

// The linear layers (not convolutions) of a graph, found before its weights are stored as
// bfloat16 (layer_of reads a weight [in, out] only as a placeholder).
std::vector<detail::Layer> linear_layers(const ir::Graph& g) {
  std::vector<detail::Layer> layers;
  for (const auto& node : g.nodes()) {
    const std::optional<detail::Layer> layer = detail::layer_of(node.get());
    if (layer && !layer->convolution) layers.push_back(*layer);
  }
  return layers;
}

// Each linear layer that reads a stored bfloat16 weight as torch.autocast(bfloat16) runs it:
// _to_copy(layer(_to_copy(x, bf16), weight, _to_copy(bias, bf16)), float32).
void linear_layers_in_bf16(ir::Graph& g, const std::vector<detail::Layer>& layers) {
  const OpDef& linear = find_op("aten::linear");
  const OpDef& addmm = find_op("aten::addmm");
  for (const detail::Layer& l : layers) {
    ir::Node* node = l.node;
    const ir::Node* stored = stored_bf16(l);
    // The input as the node reads it now (an earlier layer it reads was rewritten).
    const ir::ValueRef* input = ir::detail::ref_of(node->arg(l.input_arg));
    if (stored == nullptr || input == nullptr) continue;
    const ir::TensorSpec& x = input->node->outputs()[input->index];
    std::vector<ir::Argument> args = detail::with_arg(
        *node, l.input_arg,
        converted(g, node->position(), *input,
                  ir::TensorSpec::contiguous(DType::BFloat16, x.sizes), node->meta())
            ->out());
    ir::Argument weight = stored->out();
    if (l.weight_reader != node) {  // a transpose: the same, of the bfloat16 weight
      const ir::Node& t = *l.weight_reader;
      weight = g.insert_call(node->position(), *t.op(),
                             detail::with_arg(t, l.weight_arg, stored->out()),
                             {with_dtype(t.outputs()[0], DType::BFloat16)}, t.meta())
                   ->out();
    }
    args[static_cast<size_t>(node->op()->arg_position(weight_arg_of(node->op())))] = weight;
    const char* bias_arg = node->op() == &linear ? "bias" : node->op() == &addmm ? "self" : "";
    if (*bias_arg != '\0') {
      const size_t at = static_cast<size_t>(node->op()->arg_position(bias_arg));
      if (const ir::ValueRef* bias = ir::detail::ref_of(args[at])) {
        const ir::TensorSpec& b = bias->node->outputs()[bias->index];
        args[at] = converted(g, node->position(), *bias, with_dtype(b, DType::BFloat16),
                             node->meta())
                       ->out();
      }
    }
    const ir::Node* product =
        g.insert_call(node->position(), *node->op(), std::move(args),
                      {with_dtype(node->outputs()[0], DType::BFloat16)}, node->meta());
    const ir::Node* widened =
        converted(g, node->position(), product->out(), node->outputs()[0], node->meta());
    g.replace_all_uses(node->out(), widened->out());
    g.erase(node);
  }
  g.eliminate_dead_code();
}

}  // namespace

ExportedProgram to_bf16(const ExportedProgram& program, Bf16Compute compute) {
  xport::detail::ProgramParts p = xport::detail::ProgramParts::of(program);
  const std::vector<detail::Layer> layers = linear_layers(p.graph);
  // A buffer the program updates keeps its dtype: the update is computed in float32.
  std::set<std::string> updated;
  for (const OutputSpec& o : p.signature.outputs) {
    if (o.kind == OutputSpec::Kind::BufferMutation) updated.insert(o.target);
  }
  const std::vector<const ir::Node*> inputs = p.graph.placeholders();
  const ir::Node* first_call = p.graph.nodes()[inputs.size()].get();
  for (size_t i = 0; i < inputs.size(); ++i) {
    InputSpec& spec = p.signature.inputs[i];
    if (spec.kind == InputSpec::Kind::UserInput || updated.count(spec.target) > 0) continue;
    const ir::TensorSpec& old = inputs[i]->outputs()[0];
    // Matrices, convolution kernels, tables: the bytes. Biases and norms stay float32.
    if (old.dtype != DType::Float32 || old.sizes.size() < 2) continue;
    std::string name = spec.name + "_bf16";
    for (int k = 1; p.graph.uses_name(name); ++k) name = spec.name + "_bf16_" + std::to_string(k);
    const ir::Node* stored = p.graph.insert_placeholder(
        i, name, ir::TensorSpec::contiguous(DType::BFloat16, old.sizes), inputs[i]->meta());
    const ir::Node* widened =
        converted(p.graph, first_call->position(), stored->out(),
                  ir::TensorSpec::contiguous(DType::Float32, old.sizes));
    p.graph.replace_all_uses(inputs[i]->out(), widened->out());
    p.graph.erase_placeholder(inputs[i]);
    spec.name = name;
    p.state[spec.target] = p.state.at(spec.target).to(DType::BFloat16);
  }
  if (compute == Bf16Compute::BFloat16) linear_layers_in_bf16(p.graph, layers);
  return std::move(p).build();
}

}  // namespace xport::quant
