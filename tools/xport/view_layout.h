#pragma once
// The pictures of `xport view`: a graph as DOT (a box per node with its name, op, output types,
// the weights it reads and its source line; module paths as nested clusters), laid out by
// Graphviz's dot into SVG when the page is written.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "xport/ir/ir.h"

namespace xport::tools {

/// How one picture is drawn.
struct PictureStyle {
  /// Prefix of the element ids (`node_` + prefix + name), unique per picture on a page.
  std::string prefix;
  /// Placeholder names drawn inside the nodes that read them (parameters, buffers, constants)
  /// rather than as nodes of their own.
  std::vector<std::string> state;
  /// Extra class of a node by name (`changed`, `added`, `removed` on a diff page).
  std::map<std::string, std::string> node_class;
};

/// Above this many nodes dot's iterations are capped (network simplex: nslimit, nslimit1;
/// crossing minimisation: mclimit, searchsize) and edges are straight lines, not splines: a
/// 5,000-node GPT-2 is laid out in about 4 s (on 2 cores). Module clusters stay: they keep
/// crossing minimisation local (without them the same graph takes 12 to 17 s).
inline constexpr size_t kLargeGraphNodes = 1500;

/// The graph as Graphviz's DOT text.
std::string dot_of(const ir::Graph& graph, const PictureStyle& style);

/// dot's layout of `dot` rendered as an <svg> element.
std::string svg_of(const std::string& dot);

/// The subgraphs of `graph` (cond's branches, map's body), depth first: the id prefix of each
/// (`true_graph_0/`, nested `a/b/`), the node that owns it and the graph.
struct SubgraphPicture {
  std::string prefix;
  std::string owner;
  const ir::Graph* graph;
};
std::vector<SubgraphPicture> subgraphs_of(const ir::Graph& graph, const std::string& prefix);

}  // namespace xport::tools
