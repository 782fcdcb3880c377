#include "runtime/run_inputs.h"

#include "program/input_check.h"

namespace xport::runtime {

ProgramPlaceholders program_placeholders(const ExportedProgram& program) {
  ProgramPlaceholders out;
  for (const InputSpec& spec : program.signature().inputs) {
    const bool user = spec.kind == InputSpec::Kind::UserInput;
    out.is_user_input.push_back(user);
    out.tensors.push_back(user ? Tensor() : program.state().at(spec.target));
  }
  return out;
}

std::vector<Tensor> bind_run_inputs(const ExportedProgram& program,
                                    const std::vector<Tensor>& placeholders,
                                    const std::vector<bool>& is_user_input,
                                    const std::vector<Value>& inputs,
                                    std::unordered_map<sym::ExprPtr, int64_t>& symbols,
                                    std::vector<Tensor>* user) {
  std::vector<Tensor> given = check_inputs(program.contract(), program.symbols(), inputs, symbols);
  if (user != nullptr) *user = given;
  std::vector<Tensor> bound = placeholders;
  size_t next = 0;
  for (size_t p = 0; p < bound.size(); ++p) {
    if (!is_user_input[p]) continue;
    Tensor t = std::move(given.at(next++));
    if (!t.is_contiguous()) t = t.contiguous();
    if (t.storage_offset().maybe_int() != std::optional<int64_t>(0)) t = t.clone();
    bound[p] = std::move(t);
  }
  return bound;
}

}  // namespace xport::runtime
