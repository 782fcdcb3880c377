#include "tools/xport/view.h"

#include <chrono>
#include <fstream>
#include <string_view>

#include <nlohmann/json.hpp>

#include "src/text/html_escape.h"
#include "tools/xport/view_details.h"
#include "tools/xport/view_diff.h"
#include "tools/xport/view_layout.h"
#include "tools/xport/view_tables.h"
#include "xport/serde/archive.h"

namespace xport::tools {
using text::escape_html;

const std::vector<std::pair<std::string_view, std::string_view>>& view_assets();

namespace {

using nlohmann::json;

std::string asset(std::string_view name) {
  for (const auto& [n, text] : view_assets()) {
    if (n == name) return std::string(text);
  }
  XPORT_CHECK(false, Internal, "xport view: no embedded asset ", name);
  return "";
}

std::vector<std::string> state_names(const ExportedProgram& program) {
  std::vector<std::string> names;
  for (const InputSpec& in : program.signature().inputs) {
    if (in.kind != InputSpec::Kind::UserInput) names.push_back(in.name);
  }
  return names;
}

// The first user input's element id: the page opens on it.
std::string first_input(const ExportedProgram& program, const std::string& prefix) {
  for (const InputSpec& in : program.signature().inputs) {
    if (in.kind == InputSpec::Kind::UserInput) return "node_" + prefix + in.name;
  }
  const auto& nodes = program.graph().nodes();
  return nodes.empty() ? "" : "node_" + prefix + nodes.front()->name();
}

// Node details and weights of `program` (ids under `prefix`) added to `data`.
void add_program(const ExportedProgram& program, const std::string& prefix, json& data) {
  const json weights = weight_details(program);
  for (const auto& [name, w] : weights.items()) data["weights"][prefix + name] = w;
  add_node_details(program.graph(), prefix, weights, data["nodes"]);
  for (const SubgraphPicture& s : subgraphs_of(program.graph(), prefix)) {
    add_node_details(*s.graph, s.prefix, json::object(), data["nodes"]);
  }
}

std::string picture(const std::string& id, const std::string& title, const std::string& svg,
                    bool hidden) {
  return "<div class=\"picture\" id=\"" + id + "\" data-title=\"" + escape_html(title) + "\"" +
         (hidden ? " hidden" : "") + ">\n" + svg + "</div>\n";
}

// `side` (the title, the search box) comes above the properties panel, `tables` below it.
std::string page(const std::string& title, const std::string& side, const std::string& tables,
                 const std::string& main, const json& data, const std::string& body_class) {
  std::string text = data.dump(-1, ' ', false, json::error_handler_t::replace);
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at)) {
    text.replace(at, 2, "<\\/");
  }
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
         escape_html(title) + " - xport view</title>\n<style>" + asset("view.css") +
         "</style>\n</head><body class=\"" + body_class + "\">\n<div id=\"side\">\n" + side +
         "<div id=\"props\"><p class=\"hint\">Click a node to see its properties.</p></div>\n" +
         tables + "</div>\n<div id=\"main\">\n<div id=\"toolbar\"><button id=\"fit\">fit</button>"
         "<button id=\"zoom-in\">+</button><button id=\"zoom-out\">&minus;</button>"
         "<select id=\"picture\"></select></div>\n<div id=\"pictures\">\n" + main +
         "</div>\n</div>\n<script type=\"application/json\" id=\"xport-data\">" + text +
         "</script>\n<script>" + asset("d3.min.js") + "</script>\n<script>" + asset("view.js") +
         "</script>\n</body></html>\n";
}

const char* const kSearch =
    "<input id=\"search\" placeholder=\"find a node by name, op or module path\">\n"
    "<div id=\"status\"></div>\n<ul id=\"results\"></ul>\n";

}  // namespace

std::string view_html(const ExportedProgram& program, const std::string& title) {
  json data = {{"nodes", json::object()}, {"weights", json::object()}, {"pictures", json::array()}};
  add_program(program, "", data);
  PictureStyle style{.prefix = "", .state = state_names(program), .node_class = {}};
  std::string main =
      picture("picture_0", "graph", svg_of(dot_of(program.graph(), style)), false);
  data["pictures"].push_back({{"id", "picture_0"}, {"open", first_input(program, "")}});
  int index = 1;
  for (const SubgraphPicture& s : subgraphs_of(program.graph(), "")) {
    const std::string id = "picture_" + std::to_string(index++);
    const std::string name = s.prefix.substr(0, s.prefix.size() - 1);
    PictureStyle sub{.prefix = s.prefix, .state = {}, .node_class = {}};
    main += picture(id, "subgraph " + name + " (of node " + s.owner + ")",
                    svg_of(dot_of(*s.graph, sub)), true);
    data["pictures"].push_back({{"id", id}, {"open", ""}});
  }
  const std::string side = "<h2>" + escape_html(title) + "</h2>\n<p>" +
                           std::to_string(program.graph().nodes().size()) + " nodes</p>\n" +
                           kSearch;
  const std::string tables = "<details open><summary>Signature and contract</summary>\n" +
                             signature_tables(program, data["weights"]) + "</details>\n";
  return page(title, side, tables, main, data, "single");
}

std::string diff_html(const ExportedProgram& a, const std::string& a_title,
                      const ExportedProgram& b, const std::string& b_title) {
  json data = {{"nodes", json::object()}, {"weights", json::object()}, {"pictures", json::array()}};
  add_program(a, "a/", data);
  add_program(b, "b/", data);
  const GraphDiff diff = diff_graphs(a.graph(), b.graph());
  std::string main;
  auto side_of = [&](const ExportedProgram& p, const std::map<std::string, NodeMatch>& matches,
                     const std::string& prefix, const std::string& other, const std::string& id,
                     const std::string& title) {
    PictureStyle style{.prefix = prefix, .state = state_names(p), .node_class = {}};
    for (const auto& [name, m] : matches) {
      if (m.status != "same") style.node_class[name] = m.status;
      json peers = json::array();
      for (const std::string& peer : m.peers) peers.push_back("node_" + other + peer);
      data["nodes"]["node_" + prefix + name]["diff"] = {{"status", m.status}, {"peers", peers}};
    }
    main += "<div class=\"pane\"><h3>" + escape_html(title) + "</h3>\n" +
            picture(id, title, svg_of(dot_of(p.graph(), style)), false) + "</div>\n";
    data["pictures"].push_back({{"id", id}, {"open", first_input(p, prefix)}});
  };
  side_of(a, diff.a, "a/", "b/", "picture_a", "A: " + a_title);
  side_of(b, diff.b, "b/", "a/", "picture_b", "B: " + b_title);
  auto row = [](const std::string& cls, const std::string& what, int n) {
    return "<tr class=\"" + cls + "\"><td>" + what + "</td><td>" + std::to_string(n) +
           "</td></tr>\n";
  };
  const std::string side =
      "<h2>" + escape_html(a_title) + " &rarr; " + escape_html(b_title) + "</h2>\n<p>" +
      std::to_string(a.graph().nodes().size()) + " nodes &rarr; " +
      std::to_string(b.graph().nodes().size()) + " nodes, matched by name, then by source "
      "line</p>\n<table id=\"diff-summary\">\n" + row("same", "unchanged", diff.same) +
      row("changed", "changed in A", diff.changed_a) +
      row("changed", "changed in B", diff.changed_b) +
      row("removed", "only in A", diff.removed) + row("added", "only in B", diff.added) +
      "</table>\n" + kSearch;
  return page(a_title + " vs " + b_title, side, "", main, data, "diff");
}

int run_view(const std::vector<std::string>& archives, const std::string& out_html,
             std::ostream& out) {
  XPORT_CHECK(archives.size() == 1 || archives.size() == 2, InvalidInput,
              "xport view: give one archive (FILE OUT.html) or two to compare (A B OUT.html), "
              "not ", archives.size());
  const auto start = std::chrono::steady_clock::now();
  const ExportedProgram a = load(archives[0]);
  std::string html;
  std::string what = std::to_string(a.graph().nodes().size()) + " nodes of " + archives[0];
  if (archives.size() == 1) {
    html = view_html(a, archives[0]);
  } else {
    const ExportedProgram b = load(archives[1]);
    html = diff_html(a, archives[0], b, archives[1]);
    what += " and " + std::to_string(b.graph().nodes().size()) + " of " + archives[1];
  }
  std::ofstream file(out_html, std::ios::binary);
  file << html;
  XPORT_CHECK(file.good(), InvalidInput, "xport view: cannot write ", out_html);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "xport view: " << what << " drawn into " << out_html << " (" << html.size() / 1024
      << " KiB, " << static_cast<int>(seconds * 1000) << " ms)\n";
  return 0;
}

}  // namespace xport::tools
