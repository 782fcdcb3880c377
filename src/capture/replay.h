#pragma once
// Re-tracing an exported program over its own symbols: run_decompositions replaces ops by what
// they decompose into, train::grad appends the backward pass. Both start here.

#include <functional>
#include <map>
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

/// What replaces a re-traced program's user outputs may change besides tracing more ops on
/// `tracer` (whose graph is `graph`): the inputs (kept in step with the graph's placeholders)
/// and the program's state.
struct ReplayEdit {
  Tracer& tracer;
  ir::Graph& graph;
  GraphSignature& signature;
  std::map<std::string, Tensor>& state;

  /// The fake tensor of input `index` (its placeholder).
  Tensor input(size_t index);
  /// A new persistent buffer `target` (a dotted path) holding `initial`, as the last input
  /// before the user inputs; its fake tensor.
  Tensor add_buffer(const std::string& target, const Tensor& initial);
};

/// One result of the new program: a value and what it is (a user output, a buffer's update).
struct ReplayedResult {
  Tensor value;
  OutputSpec spec;  ///< its name is filled in
};

/// Given the re-traced user outputs (fake tensors), what the new program returns in their
/// place.
using ReplacedResults = std::function<std::vector<ReplayedResult>(
    ReplayEdit& edit, const std::vector<Tensor>& user_outputs)>;

/// Re-traces `program`'s graph over the same symbols, the ops in `table` replaced by their
/// decompositions (subgraphs re-traced too; nodes keep their source lines and module paths).
/// In-place updates of inputs become outputs, first. With `results`, the program's user outputs
/// are replaced by what it returns. `what` names the caller in errors (a step that took a
/// decision about shapes, or captured a real tensor, is a bug reported as Internal).
ExportedProgram replay_program(const ExportedProgram& program, const DecompositionTable& table,
                               const std::string& what, const ReplacedResults& results = nullptr);

}  // namespace xport::capture
