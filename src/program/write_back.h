#pragma once
// What a run does after the graph: the new values of buffers and user inputs that the program
// updates in place are written back, as the eager program would have left them.

#include <map>
#include <string>
#include <vector>

#include "ir/input_update.h"
#include "xport/program/exported_program.h"

namespace xport {

/// Splits the graph's `results` by `signature`: each BufferMutation is copied into its tensor in
/// `state`, each UserInputMutation into the caller's tensor (`user_inputs`, in placeholder
/// order); the user outputs are returned. A result that already is the target's memory (the
/// runtime updated it in place) is not copied.
std::vector<Tensor> write_back_mutations(const GraphSignature& signature,
                                         std::vector<Tensor> results,
                                         const std::map<std::string, Tensor>& state,
                                         const std::vector<Tensor>& user_inputs);

/// One buffer the program updates: graph input `input` (a buffer) gets graph output `output`.
using BufferUpdate = ir::InputUpdate;
/// Every BufferMutation output, with the input of the buffer it updates.
std::vector<BufferUpdate> buffer_updates(const GraphSignature& signature);

}  // namespace xport
