// The default decomposition table: read from the registry, so it belongs with the program (a
// runtime-only backend may choose ops from it) rather than with the capture code that applies it.
#include "xport/program/exported_program.h"

namespace xport {

DecompositionTable core_decompositions() {
  DecompositionTable table;
  for (const OpDef* op : all_ops()) {
    if (!op->core && op->decomp && op->kind != OpKind::Composite) {
      table[op->qualified_name] = op->decomp;
    }
  }
  return table;
}

}  // namespace xport
