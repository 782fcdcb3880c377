#include "tools/xport/decompose.h"

#include <map>

#include "xport/program/exported_program.h"
#include "xport/serde/archive.h"

namespace xport::tools {
namespace {

// Calls per op ("aten::addmm": 3), and how many of those ops are outside the core set.
struct OpCounts {
  std::map<std::string, int> calls;
  int calls_total = 0;
  int non_core = 0;
};

OpCounts count_ops(const ir::Graph& graph) {
  OpCounts counts;
  for (const auto& node : graph.nodes()) {
    if (node->kind() != ir::NodeKind::Call) continue;
    ++counts.calls[node->op()->qualified_name];
    ++counts.calls_total;
    counts.non_core += node->op()->core ? 0 : 1;
  }
  return counts;
}

}  // namespace

int run_decompose(const std::string& in, const std::string& out, std::ostream& report) {
  const ExportedProgram program = load(in);
  const ExportedProgram core = program.run_decompositions();
  save(core, out);
  const OpCounts before = count_ops(program.graph()), after = count_ops(core.graph());
  report << in << ": " << before.calls_total << " calls of " << before.calls.size() << " ops ("
         << before.non_core << " calls outside the core set)\n"
         << out << ": " << after.calls_total << " calls of " << after.calls.size() << " core ops\n";
  for (const auto& [op, n] : after.calls) report << "  " << op << " x" << n << "\n";
  return 0;
}

}  // namespace xport::tools
