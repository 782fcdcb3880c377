#include "program/program_parts.h"

#include <algorithm>

namespace xport::detail {
namespace {

// A placeholder's spec for a state value: its dtype and static sizes, contiguous.
ir::TensorSpec spec_of(const Tensor& value) {
  std::vector<sym::ExprPtr> sizes;
  for (int64_t s : value.int_sizes()) sizes.push_back(sym::integer(s));
  return ir::TensorSpec::contiguous(value.dtype(), std::move(sizes));
}

}  // namespace

ProgramParts ProgramParts::of(const ExportedProgram& program) {
  return ProgramParts{.graph = program.graph().clone(),
                      .signature = program.signature(),
                      .contract = program.contract(),
                      .symbols = program.symbols(),
                      .state = program.state()};
}

ir::Node* ProgramParts::add_state_input(InputSpec::Kind kind, const std::string& name,
                                        const std::string& target, Tensor value) {
  XPORT_CHECK(kind != InputSpec::Kind::UserInput, InvalidInput,
              "ProgramParts::add_state_input: takes a parameter, buffer or constant");
  XPORT_CHECK(state.count(target) == 0, InvalidInput, "ProgramParts::add_state_input: the "
              "program already holds '", target, "'");
  std::string unique = name;
  for (int k = 1; graph.uses_name(unique); ++k) unique = name + "_" + std::to_string(k);
  // After the last input of this kind or an earlier one.
  size_t at = 0;
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    if (signature.inputs[i].kind <= kind) at = i + 1;
  }
  ir::Node* node = graph.insert_placeholder(at, unique, spec_of(value));
  signature.inputs.insert(signature.inputs.begin() + static_cast<std::ptrdiff_t>(at),
                          {kind, unique, target, true});
  state[target] = std::move(value);
  return node;
}

void ProgramParts::add_buffer_update(ir::ValueRef value, const std::string& target) {
  const ir::Node* out = graph.output();
  std::vector<ir::Argument> results = out->args();
  size_t at = 0;
  while (at < signature.outputs.size() &&
         signature.outputs[at].kind != OutputSpec::Kind::UserOutput) {
    ++at;
  }
  results.insert(results.begin() + static_cast<std::ptrdiff_t>(at), value);
  signature.outputs.insert(signature.outputs.begin() + static_cast<std::ptrdiff_t>(at),
                           {OutputSpec::Kind::BufferMutation, value.node->name(), target});
  graph.set_args(const_cast<ir::Node*>(out), std::move(results));
}

void ProgramParts::remove_buffer_updates(
    const std::function<bool(const std::string& target)>& drop) {
  const ir::Node* out = graph.output();
  std::vector<ir::Argument> results;
  std::vector<OutputSpec> kept;
  for (size_t i = 0; i < signature.outputs.size(); ++i) {
    const OutputSpec& o = signature.outputs[i];
    if (o.kind == OutputSpec::Kind::BufferMutation && drop(o.target)) continue;
    results.push_back(out->args()[i]);
    kept.push_back(o);
  }
  signature.outputs = std::move(kept);
  graph.set_args(const_cast<ir::Node*>(out), std::move(results));
}

void ProgramParts::remove_dead_code() {
  graph.eliminate_dead_code();
  const std::vector<const ir::Node*> inputs = graph.placeholders();
  std::vector<InputSpec> kept;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputSpec& spec = signature.inputs[i];
    if (spec.kind != InputSpec::Kind::UserInput && graph.users(inputs[i]).empty()) {
      state.erase(spec.target);
      graph.erase_placeholder(inputs[i]);
      continue;
    }
    kept.push_back(spec);
  }
  signature.inputs = std::move(kept);
}

ExportedProgram ProgramParts::build() && {
  const ExportedProgram program(std::move(graph), std::move(signature), std::move(contract),
                                std::move(symbols), std::move(state));
  return program.transform([](ir::Graph&) {});
}

}  // namespace xport::detail
