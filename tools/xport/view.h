#pragma once
// `xport view FILE.pt2 OUT.html`: the program of an archive as one self-contained page. The graph
// is laid out by Graphviz (dot, at generation time) into SVG: a box per node with its name, op,
// output types and source line, module paths as nested groups, each subgraph (cond's branches,
// map's body) as its own picture in a collapsible section. A side panel holds the signature and
// the contract, and a search box finds a node by name (also from the URL: OUT.html#search=NAME).
// The page loads nothing from the network.

#include <ostream>
#include <string>

#include "xport/program.h"

namespace xport::tools {

/// The page for `program`, titled `title`.
std::string view_html(const ExportedProgram& program, const std::string& title);

/// Loads `archive`, writes view_html to `out_html`, prints one line; returns 0.
int run_view(const std::string& archive, const std::string& out_html, std::ostream& out);

}  // namespace xport::tools
