// quant::to_bf16: float32 weights stored as bfloat16, converted back where the program reads
// them, so the program computes in float32 on every CPU.
#include <set>
#include <utility>

#include "program/program_parts.h"
#include "xport/quant.h"

namespace xport::quant {

ExportedProgram to_bf16(const ExportedProgram& program) {
  xport::detail::ProgramParts p = xport::detail::ProgramParts::of(program);
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
    const ir::Node* widened = p.graph.insert_call(
        first_call->position(), find_op("aten::_to_copy"),
        {stored->out(), DType::Float32, ir::Argument(), ir::Argument(), ir::Argument(), false,
         ir::Argument()},
        {ir::TensorSpec::contiguous(DType::Float32, old.sizes)});
    p.graph.replace_all_uses(inputs[i]->out(), widened->out());
    p.graph.erase_placeholder(inputs[i]);
    spec.name = name;
    p.state[spec.target] = p.state.at(spec.target).to(DType::BFloat16);
  }
  return std::move(p).build();
}

}  // namespace xport::quant
