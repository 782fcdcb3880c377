#include "program/specialize.h"

#include <unordered_map>
#include <vector>

#include "xport/core/error.h"

namespace xport {
namespace {

std::string describe(const SymbolSpec& s) {
  std::string out = s.name;
  if (!s.dim_name.empty()) out += " (Dim " + s.dim_name + ")";
  return out + " = " + s.source + " in " + s.range.str();
}

const SymbolSpec& symbol_named(const std::vector<SymbolSpec>& symbols, const std::string& name) {
  std::string dynamic;
  for (const SymbolSpec& s : symbols) {
    if (s.unbacked) continue;
    if (s.name == name || s.dim_name == name || s.source == name) return s;
    dynamic += "\n  " + describe(s);
  }
  XPORT_FAIL(InvalidInput, "no dynamic dim of the program is named '", name, "'",
             dynamic.empty() ? "; its dims are all static" : "; its dynamic dims:" + dynamic);
}

void substitute_sizes(InputContract& input,
                      const std::unordered_map<sym::ExprPtr, sym::ExprPtr>& values) {
  for (sym::ExprPtr& s : input.sizes) s = sym::substitute(s, values);
  for (InputContract& element : input.elements) substitute_sizes(element, values);
}

}  // namespace

ExportedProgram specialize(const ExportedProgram& program,
                           const std::map<std::string, int64_t>& dims) {
  std::unordered_map<sym::ExprPtr, sym::ExprPtr> values;
  for (const auto& [name, value] : dims) {
    const SymbolSpec& s = symbol_named(program.symbols(), name);
    XPORT_CHECK(s.range.contains(value), InvalidInput, "'", name, "' cannot be ", value, ": ",
                describe(s), " in the program's contract");
    const auto [it, fresh] = values.emplace(sym::symbol(s.name), sym::integer(value));
    XPORT_CHECK(fresh || it->second == sym::integer(value), InvalidInput, "'", name, "' names ",
                s.name, ", which another name fixed to ", sym::str(it->second));
  }
  ir::Graph graph = program.graph().clone();
  graph.substitute(values);
  std::vector<InputContract> contract = program.contract();
  for (InputContract& input : contract) substitute_sizes(input, values);
  std::vector<SymbolSpec> symbols;
  for (const SymbolSpec& s : program.symbols()) {
    if (!values.count(sym::symbol(s.name))) symbols.push_back(s);
  }
  return ExportedProgram(std::move(graph), program.signature(), std::move(contract),
                         std::move(symbols), program.state());
}

}  // namespace xport
