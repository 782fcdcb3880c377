// ExportedProgram::transform: a user pass over a copy of the graph, then the structural verifier
// and the metadata check (every call against its op's meta function) at sizes inside the
// contract.
#include <algorithm>

#include "xport/program/exported_program.h"

namespace xport {
namespace {

// Symbol values inside the program's ranges: `round` 0 takes each symbol's smallest size from
// 2 up (1 where the range ends there), later rounds larger ones, different per symbol, so that
// a size recorded with the wrong symbol shows.
std::unordered_map<sym::ExprPtr, int64_t> sample_point(const std::vector<SymbolSpec>& symbols,
                                                       int round) {
  std::unordered_map<sym::ExprPtr, int64_t> point;
  for (size_t i = 0; i < symbols.size(); ++i) {
    const sym::Range& r = symbols[i].range;
    const int64_t lo = std::max<int64_t>(r.lo, std::min<int64_t>(2, r.hi));
    const int64_t step = static_cast<int64_t>(3 + i) * round;
    point[sym::symbol(symbols[i].name)] = std::min<int64_t>(r.hi, lo + step);
  }
  return point;
}

}  // namespace

ExportedProgram ExportedProgram::transform(const std::function<void(ir::Graph&)>& pass) const {
  XPORT_CHECK(pass != nullptr, InvalidInput, "ExportedProgram::transform: the pass is empty");
  ir::Graph graph = this->graph().clone();
  pass(graph);
  graph.verify();
  const std::vector<const ir::Node*> placeholders = graph.placeholders();
  XPORT_CHECK(placeholders.size() == signature().inputs.size(), InvalidInput,
              "ExportedProgram::transform: the pass left ", placeholders.size(),
              " graph inputs; the program has ", signature().inputs.size(),
              " (parameters, buffers, constants and user inputs stay as they are)");
  for (size_t i = 0; i < placeholders.size(); ++i) {
    XPORT_CHECK(placeholders[i]->name() == signature().inputs[i].name, InvalidInput,
                "ExportedProgram::transform: graph input ", i, " is %", placeholders[i]->name(),
                ", the signature's is %", signature().inputs[i].name,
                "; a pass may not add, remove or rename inputs");
  }
  // Results keep their places in the signature; their names follow the graph.
  GraphSignature signature = this->signature();
  const ir::Node* output = graph.output();
  XPORT_CHECK(output->args().size() == signature.outputs.size(), InvalidInput,
              "ExportedProgram::transform: the pass left ", output->args().size(),
              " results; the signature has ", signature.outputs.size());
  for (size_t i = 0; i < signature.outputs.size(); ++i) {
    if (const auto* ref = std::get_if<ir::ValueRef>(&output->args()[i].value)) {
      signature.outputs[i].name = ref->node->name();
    }
  }
  for (int round = 0; round < 2; ++round) {
    ir::verify_metadata(graph, sample_point(symbols(), round));
  }
  return ExportedProgram(std::move(graph), std::move(signature), contract(), symbols(),
                         state());
}

}  // namespace xport
