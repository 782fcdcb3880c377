#pragma once
// Two programs side by side (`xport view A.pt2 B.pt2 OUT.html`): before and after
// run_decompositions, a pass or a fusion. Nodes are matched by name first (the same op, constant
// arguments, output types, module and source line is unchanged, anything else changed), then
// what is left by source line and module path (a node decomposed into others keeps both: those
// are changed, matched to each other); the rest is only in A (removed) or only in B (added).

#include <map>
#include <string>
#include <vector>

#include "xport/ir/ir.h"

namespace xport::tools {

struct NodeMatch {
  std::string status;              ///< "same", "changed", "removed" (A only), "added" (B only)
  std::vector<std::string> peers;  ///< the matched nodes of the other graph
};

struct GraphDiff {
  std::map<std::string, NodeMatch> a, b;  ///< by node name
  int same = 0, changed_a = 0, changed_b = 0, removed = 0, added = 0;
};

/// Matches the nodes of `a` and `b` (their own nodes; subgraphs are not compared).
GraphDiff diff_graphs(const ir::Graph& a, const ir::Graph& b);

}  // namespace xport::tools
