#pragma once
// A program taken apart to change what ExportedProgram::transform may not: its inputs (new
// parameters, buffers and constants, unused ones removed) and its buffer updates. quant::prepare
// adds observers' buffers, quant::convert the integer weights.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "xport/program/exported_program.h"

namespace xport::detail {

struct ProgramParts {
  ir::Graph graph;
  GraphSignature signature;
  std::vector<InputContract> contract;
  std::vector<SymbolSpec> symbols;
  std::map<std::string, Tensor> state;

  /// The parts of `program`, its graph copied.
  static ProgramParts of(const ExportedProgram& program);

  /// Adds a parameter, buffer or constant input holding `value`, after the inputs of its kind
  /// (parameters, buffers, constants, then user inputs, as PyTorch orders them). Its name is
  /// `name`, or `name_1`, ... where that is taken; `target` is its path in state().
  ir::Node* add_state_input(InputSpec::Kind kind, const std::string& name,
                            const std::string& target, Tensor value);
  /// Makes `value` the new value of buffer `target` after each run (a BufferMutation result,
  /// before the user outputs).
  void add_buffer_update(ir::ValueRef value, const std::string& target);
  /// Drops the updates of the buffers whose targets `drop` names (their inputs stay).
  void remove_buffer_updates(const std::function<bool(const std::string& target)>& drop);
  /// Removes dead calls, then the parameter, buffer and constant inputs nothing reads, with
  /// their state.
  void remove_dead_code();

  /// The program again, checked as transform() checks it.
  ExportedProgram build() &&;
};

}  // namespace xport::detail
