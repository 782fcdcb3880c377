#include "tools/xport/view_layout.h"

#include <graphviz/gvc.h>

#include <functional>
#include <mutex>
#include <set>
#include <string_view>

#include "tools/xport/view_details.h"
#include "xport/core/error.h"

namespace xport::tools {
namespace {

// A DOT string literal's contents.
std::string escape_dot(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The module groups: a node sits in the group of its innermost module, groups nest by path.
struct Group {
  std::string type;
  std::vector<const ir::Node*> nodes;
  std::map<std::string, Group> children;  // by path
};

using StateNames = std::set<std::string>;

// The weights a node reads are written inside it, as Netron does, rather than drawn as nodes of
// their own, whose edges would cross the whole picture (and cost dot most of its time).
std::string node_label(const ir::Node& n, const StateNames& state) {
  std::string label = n.name();
  if (n.kind() == ir::NodeKind::Call) label += "\\n" + n.op()->qualified_name;
  if (n.kind() == ir::NodeKind::Placeholder) label += "\\ninput";
  if (n.kind() == ir::NodeKind::Output) label = "output";
  for (const ir::TensorSpec& s : n.outputs()) label += "\\n" + escape_dot(s.str());
  for (const ir::Argument& a : n.args()) {
    each_ref(a, [&](const ir::ValueRef& v) {
      if (state.contains(v.node->name())) {
        label += "\\n" + escape_dot(v.node->name() + ": " + v.node->outputs().at(0).str());
      }
    });
  }
  if (!n.meta().source.empty()) label += "\\n" + escape_dot(n.meta().source);
  return label;
}

const char* fill_of(const std::string& cls) {
  if (cls == "changed") return "#fff1c2";
  if (cls == "added") return "#dafbe1";
  if (cls == "removed") return "#ffe2e0";
  return nullptr;
}

}  // namespace

std::string dot_of(const ir::Graph& g, const PictureStyle& style) {
  const bool large = g.nodes().size() > kLargeGraphNodes;
  // Large graphs: dot's iteration limits and straight edges bound the layout's time.
  std::string dot =
      std::string("digraph G {\n graph [rankdir=TB, nodesep=0.2, ranksep=0.3, fontname=") +
      "\"Helvetica\", fontsize=11" +
      (large ? ", nslimit=2, nslimit1=2, mclimit=0.1, searchsize=10, splines=line" : "") +
      "];\n node [shape=box, style=\"rounded,filled\", fillcolor=\"#f6f8fa\", "
      "color=\"#8c959f\", fontname=\"Courier\", fontsize=9];\n edge [color=\"#8c959f\", "
      "arrowsize=0.5];\n";
  const StateNames state(style.state.begin(), style.state.end());
  Group root;
  for (const auto& n : g.nodes()) {
    if (state.contains(n->name())) continue;
    Group* group = &root;
    for (const auto& [path, type] : n->meta().module_stack) {
      group = &group->children[path];
      group->type = type;
    }
    group->nodes.push_back(n.get());
  }
  int clusters = 0;
  std::function<void(const Group&, int)> emit = [&](const Group& group, int depth) {
    const std::string pad(static_cast<size_t>(depth) + 1, ' ');
    for (const ir::Node* n : group.nodes) {
      const bool io = n->kind() != ir::NodeKind::Call;
      const std::string& module = n->meta().module_path;
      const auto cls = style.node_class.find(n->name());
      const char* fill = cls == style.node_class.end() ? nullptr : fill_of(cls->second);
      dot += pad + "\"" + escape_dot(n->name()) + "\" [id=\"node_" +
             escape_dot(style.prefix + n->name()) + "\", label=\"" + node_label(*n, state) +
             "\"" + (fill ? std::string(", fillcolor=\"") + fill + "\""
                          : io ? ", fillcolor=\"#ddf4ff\"" : "") +
             (cls == style.node_class.end() ? "" : ", class=\"" + cls->second + "\"") +
             (module.empty() ? std::string() : ", tooltip=\"" + escape_dot(module) + "\"") +
             "];\n";
    }
    for (const auto& [child, sub] : group.children) {
      dot += pad + "subgraph \"cluster_" + std::to_string(clusters++) + "\" {\n" + pad +
             " label=\"" + escape_dot(child) + " (" + escape_dot(sub.type) + ")\"; style=rounded; "
             "color=\"#d0d7de\"; fontcolor=\"#57606a\";\n";
      emit(sub, depth + 1);
      dot += pad + "}\n";
    }
  };
  emit(root, 0);
  for (const auto& n : g.nodes()) {
    for (const ir::Argument& a : n->args()) {
      each_ref(a, [&](const ir::ValueRef& v) {
        if (state.contains(v.node->name())) return;
        dot += " \"" + escape_dot(v.node->name()) + "\" -> \"" + escape_dot(n->name()) + "\";\n";
      });
    }
  }
  return dot + "}\n";
}

// One context serves the whole process: Graphviz 2.43's text-size cache outlives a freed
// context (a use after free when the next context measures a label), so the context is made
// once and never freed. Graphviz is not thread-safe, hence the lock.
std::string svg_of(const std::string& dot) {
  static std::mutex mutex;
  static GVC_t* const gvc = gvContext();
  const std::lock_guard<std::mutex> lock(mutex);
  Agraph_t* g = agmemread(dot.c_str());
  XPORT_CHECK(g != nullptr, Internal, "xport view: Graphviz could not read the graph description");
  gvLayout(gvc, g, "dot");
  char* data = nullptr;
  unsigned int length = 0;
  gvRenderData(gvc, g, "svg", &data, &length);
  std::string svg(data != nullptr ? data : "", length);
  gvFreeRenderData(data);
  gvFreeLayout(gvc, g);
  agclose(g);
  const size_t start = svg.find("<svg");
  XPORT_CHECK(start != std::string::npos, Internal, "xport view: Graphviz wrote no SVG");
  return svg.substr(start);
}

std::vector<SubgraphPicture> subgraphs_of(const ir::Graph& g, const std::string& prefix) {
  std::vector<SubgraphPicture> out;
  for (const auto& n : g.nodes()) {
    for (const ir::SubgraphRef* s : n->subgraphs()) {
      const std::string sub = prefix + s->name + "/";
      out.push_back({sub, prefix + n->name(), s->graph.get()});
      for (SubgraphPicture& p : subgraphs_of(*s->graph, sub)) out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace xport::tools
