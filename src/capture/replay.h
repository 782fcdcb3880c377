#pragma once
// Re-tracing an exported program over its own symbols: run_decompositions replaces ops by what
// they decompose into, train::grad appends the backward pass. Both start here.

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/tracer.h"
#include "xport/program/exported_program.h"

namespace xport::capture {

/// The Value an op takes for a node's argument `arg` while its graph is re-traced: graph values
/// by `tensor_of`, symbols by `env`; `type` settles what an empty list is.
Value replayed_argument(const ir::Argument& arg, const ArgType& type,
                        const std::function<Tensor(const ir::ValueRef&)>& tensor_of,
                        ShapeEnv& env);

/// Given the re-traced user outputs (fake tensors), the user outputs the new program returns;
/// it may trace more ops on `tracer`, whose graph is `graph`.
using ReplacedResults = std::function<std::vector<Tensor>(
    Tracer& tracer, ir::Graph& graph, const std::vector<Tensor>& user_outputs)>;

/// Re-traces `program`'s graph over the same symbols, the ops in `table` replaced by their
/// decompositions (subgraphs re-traced too; nodes keep their source lines and module paths).
/// In-place updates of inputs become outputs, first. With `results`, the program's user outputs
/// are replaced by what it returns. `what` names the caller in errors (a step that took a
/// decision about shapes, or captured a real tensor, is a bug reported as Internal).
ExportedProgram replay_program(const ExportedProgram& program, const DecompositionTable& table,
                               const std::string& what, const ReplacedResults& results = nullptr);

}  // namespace xport::capture
