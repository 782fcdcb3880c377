// ExportedProgram::run_decompositions: the program re-traced with the table's ops decomposed.
#include "capture/replay.h"

namespace xport {

ExportedProgram ExportedProgram::run_decompositions(DecompositionTable table) const {
  return capture::replay_program(*this, table, "run_decompositions");
}

}  // namespace xport
