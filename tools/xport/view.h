#pragma once
// `xport view FILE.pt2 OUT.html`: the program of an archive as one self-contained page. Graphviz
// lays the graph out (dot, at generation time) into SVG: a box per node with its name, op,
// output types and source line, module paths as nested groups (up to kLargeGraphNodes nodes),
// each subgraph (cond's branches, map's body) as a picture of its own. The page pans and zooms
// (d3, Debian's libjs-d3, compiled in: wheel, drag, fit, a minimap) and opens on the graph's
// inputs; a click on a node shows its properties (op, schema, arguments by name, outputs,
// source line, module path, the weights it reads with their statistics); the signature and the
// contract are tables; a search box finds nodes by name, op or module path (also from the URL:
// OUT.html#search=NAME). `xport view A.pt2 B.pt2 OUT.html` shows two programs side by side with
// their differences marked (view_diff.h). The page loads nothing from the network.

#include <ostream>
#include <string>
#include <vector>

#include "xport/program/exported_program.h"

namespace xport::tools {

/// The page for `program`, titled `title`.
std::string view_html(const ExportedProgram& program, const std::string& title);

/// The page comparing `a` and `b` (titled by their files).
std::string diff_html(const ExportedProgram& a, const std::string& a_title,
                      const ExportedProgram& b, const std::string& b_title);

/// `archives` holds one archive (view_html) or two (diff_html); writes the page to `out_html`,
/// prints one line; returns 0.
int run_view(const std::vector<std::string>& archives, const std::string& out_html,
             std::ostream& out);

}  // namespace xport::tools
