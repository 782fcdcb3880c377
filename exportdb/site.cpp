// ExportDB as a static site: an index and one page per case, written from the same case
// definitions the tests run, each case exported as the tests export it. The case sources and
// highlight.js (Debian's libjs-highlight.js) are compiled in (exportdb_embedded.cpp, made by
// cmake/embed_files.cmake), so the installed `xport exportdb` needs no source tree.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "exportdb/case_source.h"
#include "src/text/html_escape.h"
#include "xport/exportdb/exportdb.h"
#include "xport/xport.h"

namespace xport::exportdb {

const std::vector<std::pair<std::string_view, std::string_view>>& embedded_files();

namespace {

namespace fs = std::filesystem;
using text::escape_html;

std::string_view embedded(std::string_view name) {
  for (const auto& [n, text] : embedded_files()) {
    if (n == name) return text;
  }
  return {};
}

// `code` in description text becomes <code>code</code>.
std::string prose(std::string_view s) {
  std::string out;
  bool in_code = false;
  for (char c : escape_html(s)) {
    if (c == '`') {
      out += in_code ? "</code>" : "<code>";
      in_code = !in_code;
    } else {
      out += c;
    }
  }
  if (in_code) out += "</code>";
  return out;
}

const char* const kStyle = R"(
body { font: 15px/1.5 system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
       color: #1f2328; }
a { color: #0969da; }
pre { background: #f6f8fa; padding: 0.8rem; overflow-x: auto; font-size: 13px; line-height: 1.4; }
code { font-family: ui-monospace, monospace; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: 0.3rem 0.6rem; border-bottom: 1px solid #d0d7de; }
.tag { background: #ddf4ff; border-radius: 1em; padding: 0 0.5em; margin-right: 0.3em;
       font-size: 12px; white-space: nowrap; }
.ok { color: #1a7f37; } .fails { color: #cf222e; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.sides > div { min-width: 0; }
)";

std::string page(const std::string& title, const std::string& root, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
         escape_html(title) + "</title>\n<link rel=\"stylesheet\" href=\"" + root +
         "assets/highlight.css\">\n<style>" + kStyle + "</style>\n<script src=\"" + root +
         "assets/highlight.min.js\"></script>\n</head><body>\n" + body +
         // highlight.js 9 (Debian 12) has initHighlighting; 10.6 and later highlightAll.
         "<script>if (hljs.highlightAll) hljs.highlightAll(); else hljs.initHighlighting();"
         "</script>\n</body></html>\n";
}

std::string tags_html(const Case& c) {
  std::string s;
  for (const std::string& t : c.tags) s += "<span class=\"tag\">" + escape_html(t) + "</span>";
  return s;
}

struct Outcome {
  bool exported = false;
  std::string text;  // the program as printed, or the error message
  ErrorKind kind = ErrorKind::Internal;
};

Outcome outcome_of(const Case& c) {
  try {
    return {true, exportdb::export_case(c).to_string(), ErrorKind::Internal};
  } catch (const Error& e) {
    return {false, e.what(), e.kind()};
  }
}

std::string outcome_html(const Outcome& o) {
  return o.exported ? "<span class=\"ok\">supported</span>"
                    : "<span class=\"fails\">fails: " + std::string(to_string(o.kind)) + "</span>";
}

// `f32[8, 3]` for a tensor, the value for anything else.
std::string value_text(const Value& v) {
  auto tensor = [](const Tensor& t) {
    std::string s = std::string(dtype_short_name(t.dtype())) + "[";
    for (int64_t d : t.int_sizes()) s += (s.back() == '[' ? "" : ", ") + std::to_string(d);
    return s + "]";
  };
  if (v.is_tensor()) return tensor(v.to_tensor());
  if (v.is_list()) {
    std::string s = "[";
    for (const Tensor& t : v.to_tensor_list()) s += (s.size() > 1 ? ", " : "") + tensor(t);
    return s + "]";
  }
  return v.str();
}

// The example inputs, each with its name and the Dims the spec gives its dims.
std::string inputs_html(const Case& c) {
  std::string t = "<table class=\"inputs\"><tr><th>input</th><th>example</th><th>spec</th></tr>\n";
  for (size_t i = 0; i < c.example_inputs.size(); ++i) {
    const std::string name = i < c.options.input_names.size() ? c.options.input_names[i]
                                                               : "input " + std::to_string(i);
    std::string dims;
    if (i < c.options.dynamic_shapes.size()) {
      for (const auto& [d, dim] : c.options.dynamic_shapes[i]) {
        dims += (dims.empty() ? "" : ", ") + ("dim " + std::to_string(d) + ": " + dim.str());
      }
    }
    t += "<tr><td>" + escape_html(name) + "</td><td><code>" +
         escape_html(value_text(c.example_inputs[i])) + "</code></td><td><code>" +
         escape_html(dims.empty() ? "static" : dims) + "</code></td></tr>\n";
  }
  if (c.options.dynamic_shapes.size() > c.example_inputs.size()) {
    t += "<tr><td colspan=\"3\">and " +
         std::to_string(c.options.dynamic_shapes.size() - c.example_inputs.size()) +
         " spec entries for inputs the program does not have</td></tr>\n";
  }
  return t + "</table>\n";
}

// What a case's page shows of its program: the code it exports, where it is written, its
// example inputs and spec.
struct CaseText {
  std::string program;       // program_source, or the registration when that is empty
  std::string registration;  // the add() call
};

std::string program_html(const Case& c, const CaseText& text, const std::string& id) {
  return "<p><code>" + escape_html(c.file) + ":" + std::to_string(c.line) + "</code></p>\n" +
         "<pre" + (id.empty() ? "" : " id=\"" + id + "\"") +
         "><code class=\"language-cpp\">" + escape_html(text.program) + "</code></pre>\n" +
         inputs_html(c);
}

std::string case_html(const Case& c, const Outcome& o, const CaseText& text,
                      const Case* fix, const CaseText* fix_text, const Case* fixes) {
  std::string b = "<p><a href=\"../index.html\">ExportDB</a></p>\n<h1>" + escape_html(c.name) +
                  "</h1>\n<p>" + tags_html(c) + " " + outcome_html(o) + "</p>\n<p>" +
                  prose(c.description) + "</p>\n";
  if (fixes != nullptr) {
    b += "<p id=\"fixes\">This program fixes <a href=\"" + escape_html(fixes->name) +
         ".html\">" + escape_html(fixes->name) + "</a>, which export refuses.</p>\n";
  }
  b += "<h2>Program</h2>\n<p>The function export_program traces, with the example inputs and "
       "the dynamic-shape spec it is given:</p>\n" + program_html(c, text, "program");
  if (o.exported) {
    b += "<h2>Exported program</h2>\n<p>The graph, its signature and the contract (range "
         "constraints) export_program gives:</p>\n<pre id=\"graph\"><code class=\"nohighlight\">" +
         escape_html(o.text) + "</code></pre>\n";
  } else {
    b += "<h2>Error</h2>\n<p>export_program refuses the program with this " +
         std::string(to_string(o.kind)) +
         " error, word for word:</p>\n<pre id=\"error\"><code class=\"nohighlight\">" +
         escape_html(o.text) + "</code></pre>\n";
  }
  if (fix != nullptr) {
    b += "<div id=\"fix\">\n<h2>The fix</h2>\n<p><a id=\"fix-link\" href=\"" +
         escape_html(fix->name) + ".html\">" + escape_html(fix->name) + "</a>: " +
         prose(fix->description) + "</p>\n<div class=\"sides\">\n<div><h3>Refused</h3>\n" +
         program_html(c, text, "") + "</div>\n<div><h3>Exports</h3>\n" +
         program_html(*fix, *fix_text, "") + "</div>\n</div>\n</div>\n";
  }
  b += "<h2>Registration</h2>\n<p>The case as the catalogue adds it:</p>\n"
       "<pre id=\"registration\"><code class=\"language-cpp\">" +
       escape_html(text.registration) + "</code></pre>\n";
  return page(c.name + " - xport ExportDB", "../", b);
}

void write_file(const fs::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  XPORT_CHECK(out.good(), InvalidInput, "exportdb::write_site: cannot write ", path.string());
}

}  // namespace

std::string case_page(std::string_view name) { return "cases/" + std::string(name) + ".html"; }

SiteSummary write_site(const std::string& out_dir) {
  const fs::path root(out_dir);
  std::error_code ec;
  fs::create_directories(root / "cases", ec);
  fs::create_directories(root / "assets", ec);
  XPORT_CHECK(!ec, InvalidInput, "exportdb::write_site: cannot create ", out_dir, ": ",
              ec.message());
  write_file(root / "assets/highlight.min.js", embedded("highlight.min.js"));
  write_file(root / "assets/highlight.css", embedded("highlight.css"));

  std::map<std::string, std::vector<int>> lines_by_file;
  for (const Case& c : all_cases()) lines_by_file[c.file].push_back(c.line);
  auto text_of = [&](const Case& c) {
    CaseText t;
    t.registration = case_source(embedded(c.file), c.line, lines_by_file[c.file]);
    XPORT_CHECK(!t.registration.empty(), Internal, "exportdb::write_site: no add( call at ",
                c.file, ":", c.line, " for case ", c.name);
    t.program = program_source(embedded(c.file), t.registration);
    if (t.program.empty()) t.program = t.registration;
    return t;
  };
  std::map<std::string, const Case*> fixed_by;  // the failing case each case fixes
  for (const Case& c : all_cases()) {
    if (c.fix.empty()) continue;
    XPORT_CHECK(find_case(c.fix) != nullptr, Internal, "exportdb::write_site: case ", c.name,
                " names a fix, ", c.fix, ", that is no case");
    fixed_by.emplace(c.fix, &c);
  }
  SiteSummary summary;
  std::string rows;
  for (const Case& c : all_cases()) {
    const Outcome o = outcome_of(c);
    const CaseText text = text_of(c);
    const Case* fix = c.fix.empty() ? nullptr : find_case(c.fix);
    const CaseText fix_text = fix != nullptr ? text_of(*fix) : CaseText{};
    const auto fixes = fixed_by.find(c.name);
    write_file(root / case_page(c.name),
               case_html(c, o, text, fix, fix != nullptr ? &fix_text : nullptr,
                         fixes == fixed_by.end() ? nullptr : fixes->second));
    ++summary.cases;
    (o.exported ? summary.exported : summary.refused) += 1;
    const size_t stop = c.description.find(". ");
    const std::string first_sentence =
        stop == std::string::npos ? c.description : c.description.substr(0, stop + 1);
    rows += "<tr id=\"" + escape_html(c.name) + "\"><td><a href=\"" + case_page(c.name) + "\">" +
            escape_html(c.name) + "</a></td><td>" + tags_html(c) + "</td><td>" + outcome_html(o) +
            (fix != nullptr ? " (fix: <a href=\"" + case_page(fix->name) + "\">" +
                                  escape_html(fix->name) + "</a>)"
                            : std::string()) +
            "</td><td>" + prose(first_sentence) + "</td></tr>\n";
  }
  const std::string body =
      "<h1>xport ExportDB</h1>\n<p>Example C++ programs and what <code>export_program</code> "
      "does with each: " + std::to_string(summary.cases) + " cases, " +
      std::to_string(summary.exported) + " supported, " + std::to_string(summary.refused) +
      " refused with an error that names the case. Every page is generated from the case "
      "definitions the tests run.</p>\n<table>\n<tr><th>case</th><th>tags</th><th>outcome</th>"
      "<th>what it shows</th></tr>\n" +
      rows + "</table>\n";
  write_file(root / "index.html", page("xport ExportDB", "", body));
  return summary;
}

}  // namespace xport::exportdb
