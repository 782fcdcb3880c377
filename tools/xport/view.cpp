#include "tools/xport/view.h"

#include <graphviz/gvc.h>

#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string_view>

#include "tools/xport/html_escape.h"
#include "xport/archive.h"
#include "xport/ir.h"

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

// Every graph value `arg` refers to, lists included.
void each_ref(const ir::Argument& arg, const std::function<void(const ir::ValueRef&)>& fn) {
  if (const auto* v = std::get_if<ir::ValueRef>(&arg.value)) fn(*v);
  if (const auto* list = std::get_if<std::vector<ir::Argument>>(&arg.value)) {
    for (const ir::Argument& a : *list) each_ref(a, fn);
  }
}

// The module groups: a node sits in the group of its innermost module, groups nest by path.
struct Group {
  std::string type;
  std::vector<const ir::Node*> nodes;
  std::map<std::string, Group> children;  // by path
};

// The program's state (parameters, buffers, constants) by placeholder name: drawn inside the
// nodes that read it, as Netron does, rather than as nodes of their own, whose edges would
// cross the whole picture (and cost dot most of its time).
using StateNames = std::set<std::string>;

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

// `prefix` keeps node ids unique across the main graph and its subgraphs.
std::string dot_of(const ir::Graph& g, const std::string& prefix, const StateNames& state) {
  std::string dot =
      "digraph G {\n graph [rankdir=TB, nodesep=0.2, ranksep=0.3, fontname=\"Helvetica\", "
      "fontsize=11];\n node [shape=box, style=\"rounded,filled\", fillcolor=\"#f6f8fa\", "
      "color=\"#8c959f\", fontname=\"Courier\", fontsize=9];\n edge [color=\"#8c959f\", "
      "arrowsize=0.5];\n";
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
  std::function<void(const Group&, const std::string&, int)> emit = [&](const Group& group,
                                                                         const std::string& path,
                                                                         int depth) {
    const std::string pad(static_cast<size_t>(depth) + 1, ' ');
    for (const ir::Node* n : group.nodes) {
      const bool io = n->kind() != ir::NodeKind::Call;
      const std::string& module = n->meta().module_path;
      dot += pad + "\"" + escape_dot(n->name()) + "\" [id=\"node_" +
             escape_dot(prefix + n->name()) + "\", label=\"" + node_label(*n, state) + "\"" +
             (io ? ", fillcolor=\"#ddf4ff\"" : "") +
             (module.empty() ? std::string() : ", tooltip=\"" + escape_dot(module) + "\"") +
             "];\n";
    }
    for (const auto& [child, sub] : group.children) {
      dot += pad + "subgraph \"cluster_" + std::to_string(clusters++) + "\" {\n" + pad +
             " label=\"" + escape_dot(child) + " (" + escape_dot(sub.type) + ")\"; style=rounded; "
             "color=\"#d0d7de\"; fontcolor=\"#57606a\";\n";
      emit(sub, child, depth + 1);
      dot += pad + "}\n";
    }
    (void)path;
  };
  emit(root, "", 0);
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

// Graphviz's dot layout of `dot`, as an <svg> element. One context serves the whole process:
// Graphviz 2.43's text-size cache outlives a freed context (a use after free when the next
// context measures a label), so the context is made once and never freed. Graphviz is not
// thread-safe, hence the lock.
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

// Subgraphs, depth first, with the node that owns each.
void collect_subgraphs(const ir::Graph& g, const std::string& owner_prefix,
                       std::vector<std::pair<std::string, const ir::Graph*>>& out) {
  for (const auto& n : g.nodes()) {
    for (const ir::SubgraphRef* s : n->subgraphs()) {
      const std::string name = owner_prefix + s->name;
      out.emplace_back(name + " (of node " + owner_prefix + n->name() + ")", s->graph.get());
      collect_subgraphs(*s->graph, name + "/", out);
    }
  }
}

const char* const kStyle = R"(
body { margin: 0; font: 14px system-ui, sans-serif; display: flex; height: 100vh; }
#side { width: 26rem; min-width: 18rem; overflow: auto; padding: 1rem; box-sizing: border-box;
        border-right: 1px solid #d0d7de; }
#main { flex: 1; overflow: auto; padding: 1rem; }
#side pre { font-size: 11px; white-space: pre-wrap; background: #f6f8fa; padding: 0.5rem; }
#search { width: 100%; font-size: 14px; padding: 0.3rem; box-sizing: border-box; }
#status { margin: 0.4rem 0; color: #57606a; min-height: 1.2em; }
g.node.found polygon, g.node.found path { stroke: #cf222e; stroke-width: 4; }
details { margin-top: 1rem; } summary { cursor: pointer; font-weight: 600; }
)";

// Finds a node by its name (exactly, else the first whose label contains the text), marks it,
// opens the section that holds it and scrolls it into view. #search=NAME in the URL runs it.
const char* const kScript = R"(
const box = document.getElementById('search'), status = document.getElementById('status');
function find(q) {
  q = q.trim();
  document.querySelectorAll('g.node.found').forEach(g => g.classList.remove('found'));
  if (!q) { status.textContent = ''; return null; }
  const nodes = [...document.querySelectorAll('g.node')];
  const hit = nodes.find(g => g.id === 'node_' + q) ||
              nodes.find(g => g.id.endsWith('/' + q)) ||
              nodes.find(g => g.textContent.includes(q));
  if (!hit) { status.textContent = 'no node matches "' + q + '"'; return null; }
  hit.classList.add('found');
  for (let d = hit.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
  hit.scrollIntoView({block: 'center', inline: 'center'});
  status.textContent = 'found ' + hit.id.slice(5);
  return hit;
}
box.addEventListener('keydown', e => { if (e.key === 'Enter') find(box.value); });
const m = location.hash.match(/^#search=(.*)$/);
if (m) { box.value = decodeURIComponent(m[1]); find(box.value); }
)";

}  // namespace

std::string view_html(const ExportedProgram& program, const std::string& title) {
  const std::string text = program.to_string();
  const size_t signature = text.find("\nsignature:");
  const std::string contract = signature == std::string::npos ? "" : text.substr(signature + 1);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
                     escape_html(title) + " - xport view</title>\n<style>" + kStyle +
                     "</style>\n</head><body>\n<div id=\"side\">\n<h2>" + escape_html(title) +
                     "</h2>\n<p>" + std::to_string(program.graph().nodes().size()) +
                     " nodes</p>\n<input id=\"search\" placeholder=\"find a node by name, Enter\">"
                     "\n<div id=\"status\"></div>\n<h3>Signature and contract</h3>\n<pre>" +
                     escape_html(contract) + "</pre>\n</div>\n<div id=\"main\">\n";
  StateNames state;
  for (const InputSpec& in : program.signature().inputs) {
    if (in.kind != InputSpec::Kind::UserInput) state.insert(in.name);
  }
  html += svg_of(dot_of(program.graph(), "", state)) + "\n";
  std::vector<std::pair<std::string, const ir::Graph*>> subgraphs;
  collect_subgraphs(program.graph(), "", subgraphs);
  for (const auto& [label, graph] : subgraphs) {
    const std::string prefix = label.substr(0, label.find(' ')) + "/";
    html += "<details><summary>subgraph " + escape_html(label) + "</summary>\n" +
            svg_of(dot_of(*graph, prefix, {})) + "\n</details>\n";
  }
  return html + "</div>\n<script>" + kScript + "</script>\n</body></html>\n";
}

int run_view(const std::string& archive, const std::string& out_html, std::ostream& out) {
  const ExportedProgram program = load(archive);
  const std::string html = view_html(program, archive);
  std::ofstream file(out_html, std::ios::binary);
  file << html;
  XPORT_CHECK(file.good(), InvalidInput, "xport view: cannot write ", out_html);
  out << "xport view: " << program.graph().nodes().size() << " nodes of " << archive
      << " drawn into " << out_html << "\n";
  return 0;
}

}  // namespace xport::tools
