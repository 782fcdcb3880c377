#include "tools/xport/view_diff.h"

#include "tools/xport/view_details.h"

namespace xport::tools {
namespace {

// What a node computes and where: its op, its arguments with the values it reads left out (a
// renamed producer does not change the node), its outputs, its module and its source line.
std::string what(const ir::Node& n) {
  std::string s = n.op() != nullptr ? n.op()->qualified_name : n.name();
  for (const ir::Argument& a : n.args()) {
    bool reads = false;
    each_ref(a, [&](const ir::ValueRef&) { reads = true; });
    s += " " + (reads ? std::string("%") : a.str());
  }
  for (const ir::TensorSpec& o : n.outputs()) s += " " + o.str();
  return s + " " + n.meta().module_path + " " + n.meta().source;
}

// Where a node came from: its source line and module. Nodes a pass made from one node share it.
std::string origin(const ir::Node& n) {
  return n.meta().source.empty() ? "" : n.meta().source + " " + n.meta().module_path;
}

}  // namespace

GraphDiff diff_graphs(const ir::Graph& a, const ir::Graph& b) {
  const std::vector<std::string> kNone;
  GraphDiff d;
  std::map<std::string, const ir::Node*> b_by_name;
  for (const auto& n : b.nodes()) b_by_name[n->name()] = n.get();
  std::map<std::string, std::vector<std::string>> a_by_line, b_by_line;  // unmatched, by origin
  for (const auto& n : a.nodes()) {
    const auto peer = b_by_name.find(n->name());
    if (peer == b_by_name.end()) {
      a_by_line[origin(*n)].push_back(n->name());
      continue;
    }
    const bool same = what(*n) == what(*peer->second);
    d.a[n->name()] = {same ? "same" : "changed", {n->name()}};
    d.b[n->name()] = {same ? "same" : "changed", {n->name()}};
    (same ? d.same : d.changed_a) += 1;
    d.changed_b += same ? 0 : 1;
  }
  for (const auto& n : b.nodes()) {
    if (!d.b.contains(n->name())) b_by_line[origin(*n)].push_back(n->name());
  }
  for (const auto& [line, names] : a_by_line) {
    const auto peers = b_by_line.find(line);
    const bool matched = !line.empty() && peers != b_by_line.end();
    for (const std::string& name : names) {
      d.a[name] = {matched ? "changed" : "removed", matched ? peers->second : kNone};
      (matched ? d.changed_a : d.removed) += 1;
    }
  }
  for (const auto& [line, names] : b_by_line) {
    const auto peers = a_by_line.find(line);
    const bool matched = !line.empty() && peers != a_by_line.end();
    for (const std::string& name : names) {
      d.b[name] = {matched ? "changed" : "added", matched ? peers->second : kNone};
      (matched ? d.changed_b : d.added) += 1;
    }
  }
  return d;
}

}  // namespace xport::tools
