#pragma once
// The placeholders of one run, shared by the runtime's Program and compiled models (the C ABI):
// the caller's inputs checked against the contract, in the user inputs' places.

#include <unordered_map>
#include <vector>

#include "xport/program/exported_program.h"

namespace xport::runtime {

/// A program's placeholders before a run: the tensors of its weights, buffers and constants
/// (from its state), undefined for the user's inputs, which `is_user_input` marks.
struct ProgramPlaceholders {
  std::vector<Tensor> tensors;
  std::vector<bool> is_user_input;
};
ProgramPlaceholders program_placeholders(const ExportedProgram& program);

/// `placeholders` (weights, buffers and constants; undefined where `is_user_input`) with the
/// user inputs in their places, each made contiguous at offset 0 (the layout plans assume).
/// Checks `inputs` against `program`'s contract (InvalidInput) and binds its symbols in
/// `symbols`; `user` gets the caller's tensors as given (for writing back input updates).
std::vector<Tensor> bind_run_inputs(const ExportedProgram& program,
                                    const std::vector<Tensor>& placeholders,
                                    const std::vector<bool>& is_user_input,
                                    const std::vector<Value>& inputs,
                                    std::unordered_map<sym::ExprPtr, int64_t>& symbols,
                                    std::vector<Tensor>* user = nullptr);

}  // namespace xport::runtime
