#include "describe.h"

#include <nanobind/stl/string.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace xport::python {
namespace {

// A symbol by the user's Dim name where there is one (`batch`), else its own (`s0`).
std::string dim_text(const runtime::Program& program, sym::ExprPtr e) {
  return sym::str(e, [&](sym::ExprPtr s) -> std::string {
    for (const SymbolSpec& spec : program.symbols()) {
      if (spec.name == s->name()) return spec.dim_name.empty() ? spec.name : spec.dim_name;
    }
    return s->name();
  });
}

nb::list shape_of(const runtime::Program& program, const std::vector<sym::ExprPtr>& sizes) {
  nb::list shape;
  for (sym::ExprPtr s : sizes) {
    if (auto v = sym::as_int(s)) {
      shape.append(*v);
    } else {
      shape.append(dim_text(program, s));
    }
  }
  return shape;
}

nb::dict describe_input(const runtime::Program& program, const InputContract& c) {
  nb::dict d;
  d["name"] = c.name;
  d["kind"] = to_string(c.kind);
  switch (c.kind) {
    case InputContract::Kind::Tensor:
      d["dtype"] = dtype_name(c.dtype);
      d["shape"] = shape_of(program, c.sizes);
      break;
    case InputContract::Kind::TensorList: {
      nb::list elements;
      for (const InputContract& e : c.elements) elements.append(describe_input(program, e));
      d["elements"] = elements;
      break;
    }
    case InputContract::Kind::Int:
      d["value"] = c.int_value;
      break;
    case InputContract::Kind::Bool:
      d["value"] = c.int_value != 0;
      break;
    case InputContract::Kind::Float:
      d["value"] = c.float_value;
      break;
  }
  return d;
}

nb::object bound(int64_t v, int64_t infinity) {
  if (v == infinity) return nb::none();
  return nb::int_(v);
}

}  // namespace

nb::list describe_inputs(const runtime::Program& program) {
  nb::list out;
  for (const InputContract& c : program.contract()) out.append(describe_input(program, c));
  return out;
}

nb::list describe_outputs(const runtime::Program& program) {
  const ExportedProgram& ep = program.program();
  const ir::Node* output = ep.graph().output();
  nb::list out;
  const std::vector<OutputSpec>& specs = ep.signature().outputs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != OutputSpec::Kind::UserOutput) continue;
    nb::dict d;
    d["name"] = specs[i].name;
    const ir::Argument& a = output->args().at(i);
    if (const auto* ref = std::get_if<ir::ValueRef>(&a.value)) {
      const ir::TensorSpec& spec = ref->node->outputs().at(static_cast<size_t>(ref->index));
      d["dtype"] = dtype_name(spec.dtype);
      d["shape"] = shape_of(program, spec.sizes);
    } else {
      d["value"] = a.str();
    }
    out.append(d);
  }
  return out;
}

nb::dict describe_contract(const runtime::Program& program) {
  nb::list symbols;
  std::ostringstream text;
  for (const SymbolSpec& s : program.symbols()) {
    nb::dict d;
    d["symbol"] = s.name;
    d["name"] = s.dim_name.empty() ? s.name : s.dim_name;
    d["source"] = s.source;
    d["min"] = bound(s.range.lo, sym::Range::kNegInf);
    d["max"] = bound(s.range.hi, sym::Range::kPosInf);
    d["unbacked"] = s.unbacked;
    symbols.append(d);
    text << (s.dim_name.empty() ? s.name : s.dim_name) << " in " << s.range.str();
    if (!s.source.empty()) text << "  (" << s.source << ")";
    text << "\n";
  }
  // Input dims by the expression they must equal: a group of two or more is an equality.
  std::map<std::string, std::vector<std::string>> by_expression;
  std::vector<std::string> order;
  nb::dict dims;
  for (const InputContract& c : program.contract()) {
    if (c.kind != InputContract::Kind::Tensor) continue;
    nb::list shape = shape_of(program, c.sizes);
    dims[c.name.c_str()] = shape;
    text << c.name << ": " << dtype_name(c.dtype) << "[";
    for (size_t d = 0; d < c.sizes.size(); ++d) {
      const std::string e = dim_text(program, c.sizes[d]);
      text << (d ? ", " : "") << e;
      if (sym::as_int(c.sizes[d])) continue;
      if (!by_expression.count(e)) order.push_back(e);
      by_expression[e].push_back(c.name + ".size(" + std::to_string(d) + ")");
    }
    text << "]\n";
  }
  nb::list equalities;
  for (const std::string& e : order) {
    const std::vector<std::string>& group = by_expression[e];
    if (group.size() < 2) continue;
    nb::list g;
    text << "equal:";
    for (const std::string& dim : group) {
      g.append(dim);
      text << " " << dim;
    }
    text << "  (= " << e << ")\n";
    equalities.append(g);
  }
  nb::dict out;
  out["symbols"] = symbols;
  out["inputs"] = dims;
  out["equalities"] = equalities;
  out["text"] = text.str();
  return out;
}

}  // namespace xport::python
