#include "tools/xport/view_tables.h"

#include <functional>
#include <map>
#include <vector>

#include "src/text/html_escape.h"

namespace xport::tools {
using text::escape_html;
namespace {

std::string cell(const std::string& text) { return "<td>" + escape_html(text) + "</td>"; }

std::string shape_of(const InputContract& in) {
  if (in.kind == InputContract::Kind::Int || in.kind == InputContract::Kind::Bool) {
    return std::to_string(in.int_value);
  }
  if (in.kind == InputContract::Kind::Float) return std::to_string(in.float_value);
  std::string s = std::string(dtype_short_name(in.dtype)) + "[";
  for (size_t d = 0; d < in.sizes.size(); ++d) s += (d ? ", " : "") + sym::str(in.sizes[d]);
  return s + "]";
}

// Every tensor of the contract with the name its dims are read by (`x`, `xs[1]`).
void each_tensor(const std::vector<InputContract>& contract,
                 const std::function<void(const std::string&, const InputContract&)>& fn) {
  for (const InputContract& in : contract) {
    if (in.kind == InputContract::Kind::Tensor) fn(in.name, in);
    for (size_t i = 0; i < in.elements.size(); ++i) {
      fn(in.name + "[" + std::to_string(i) + "]", in.elements[i]);
    }
  }
}

std::string inputs_table(const ExportedProgram& p) {
  std::string t = "<table id=\"inputs\"><tr><th>input</th><th>kind</th><th>type</th></tr>\n";
  for (const InputContract& in : p.contract()) {
    t += "<tr>" + cell(in.name) + cell(to_string(in.kind)) + cell(shape_of(in));
    t += "</tr>\n";
    for (size_t i = 0; i < in.elements.size(); ++i) {
      t += "<tr>" + cell(in.name + "[" + std::to_string(i) + "]") + cell("tensor") +
           cell(shape_of(in.elements[i])) + "</tr>\n";
    }
  }
  return t + "</table>\n";
}

std::string dims_table(const ExportedProgram& p) {
  std::map<std::string, std::vector<std::string>> equal, derived;  // by symbol
  each_tensor(p.contract(), [&](const std::string& name, const InputContract& in) {
    for (size_t d = 0; d < in.sizes.size(); ++d) {
      const sym::ExprPtr e = in.sizes[d];
      const std::string dim = name + ".size(" + std::to_string(d) + ")";
      if (e->kind() == sym::ExprKind::Symbol) {
        equal[e->name()].push_back(dim);
      } else if (e->kind() != sym::ExprKind::Integer) {
        for (sym::ExprPtr s : sym::free_symbols(e)) {
          derived[s->name()].push_back(dim + " = " + sym::str(e));
        }
      }
    }
  });
  std::string t =
      "<table id=\"dims\"><tr><th>symbol</th><th>Dim</th><th>range</th><th>sizes</th>"
      "<th>derived</th></tr>\n";
  for (const SymbolSpec& s : p.symbols()) {
    auto joined = [](const std::vector<std::string>& v, const char* sep) {
      std::string out;
      for (const std::string& x : v) out += (out.empty() ? "" : sep) + x;
      return out;
    };
    const std::string sizes = s.unbacked ? s.source : joined(equal[s.name], " == ");
    t += "<tr>" + cell(s.name) + cell(s.unbacked ? "(unbacked)" : s.dim_name) +
         cell(s.range.str()) + cell(sizes) + cell(joined(derived[s.name], "; ")) + "</tr>\n";
  }
  return t + "</table>\n";
}

const char* output_kind(OutputSpec::Kind kind) {
  switch (kind) {
    case OutputSpec::Kind::UserOutput: return "output";
    case OutputSpec::Kind::BufferMutation: return "buffer mutation";
    case OutputSpec::Kind::UserInputMutation: return "input mutation";
  }
  return "";
}

std::string outputs_table(const ExportedProgram& p) {
  std::string t = "<table id=\"outputs\"><tr><th>output</th><th>kind</th><th>target</th></tr>\n";
  for (const OutputSpec& o : p.signature().outputs) {
    t += "<tr>" + cell(o.name) + cell(output_kind(o.kind)) + cell(o.target) + "</tr>\n";
  }
  return t + "</table>\n";
}

std::string state_table(const nlohmann::json& weights) {
  std::map<std::string, std::vector<std::string>> by_module;
  for (const auto& [name, w] : weights.items()) by_module[w["module"]].push_back(name);
  std::string t =
      "<table id=\"weights\"><tr><th>name</th><th>kind</th><th>type</th><th>bytes</th></tr>\n";
  for (const auto& [module, names] : by_module) {
    t += "<tr class=\"module\"><th colspan=\"4\">" +
         escape_html(module.empty() ? "(program)" : module) + "</th></tr>\n";
    for (const std::string& name : names) {
      const nlohmann::json& w = weights[name];
      std::string type = w.value("dtype", "") + "[";
      for (const auto& d : w.value("shape", nlohmann::json::array())) {
        type += (type.back() == '[' ? "" : ", ") + std::to_string(d.get<int64_t>());
      }
      const std::string target = w["target"];
      t += "<tr data-weight=\"" + escape_html(name) + "\">" +
           cell(target.substr(module.empty() ? 0 : module.size() + 1)) +
           cell(w["kind"].get<std::string>()) + cell(type + "]") +
           cell(std::to_string(w.value("bytes", int64_t{0}))) + "</tr>\n";
    }
  }
  return t + "</table>\n";
}

}  // namespace

std::string signature_tables(const ExportedProgram& program, const nlohmann::json& weights) {
  return "<h3>Inputs</h3>\n" + inputs_table(program) + "<h3>Dims</h3>\n" + dims_table(program) +
         "<h3>Outputs</h3>\n" + outputs_table(program) +
         "<h3>Parameters and buffers</h3>\n" + state_table(weights);
}

}  // namespace xport::tools
