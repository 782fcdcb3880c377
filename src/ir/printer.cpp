// Printing: graphs print like code, one node per line, with each value's spec and source.

#include <charconv>
#include <cmath>
#include <sstream>

#include "ir/ir_util.h"
#include "xport/ir/ir.h"

namespace xport::ir {
namespace detail {

std::string op_display_name(const OpDef& op) {
  const Schema& s = op.parsed;
  if (op.higher_order) return s.ns + "::" + s.name;  // as PyTorch: higher_order.cond, no overload
  return s.ns + "::" + s.name + "." + (s.overload.empty() ? "default" : s.overload);
}

std::string node_label(const Node& node) {
  std::string kind;
  switch (node.kind()) {
    case NodeKind::Placeholder:
      kind = "placeholder";
      break;
    case NodeKind::Call:
      kind = node.op() ? node.op()->qualified_name : "call without an op";
      break;
    case NodeKind::Output:
      kind = "output";
      break;
  }
  return "%" + node.name() + " (" + kind + ")";
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The shortest digits that round-trip, then laid out as Python's repr does: positional for
  // exponents in [-4, 16), scientific otherwise.
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  const std::string sci(buf, result.ptr);
  const size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string sign;
  if (mantissa[0] == '-') {
    sign = "-";
    mantissa.erase(0, 1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return sign + "0." + std::string(-exponent - 1, '0') + digits;
    const size_t int_digits = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= int_digits) {
      return sign + digits + std::string(int_digits - digits.size(), '0') + ".0";
    }
    return sign + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
  }
  std::string out = sign + digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int magnitude = std::abs(exponent);
  return out + (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") +
         std::to_string(magnitude);
}

}  // namespace detail

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Whether `arg` equals the schema default `d`, so the printer can leave it out.
bool equals_default(const xport::Argument& param, const Argument& arg, const Value& d) {
  const auto* expr = std::get_if<sym::ExprPtr>(&arg.value);
  const auto int_of = [&]() -> std::optional<int64_t> {
    return expr && *expr ? sym::as_int(*expr) : std::nullopt;
  };
  if (d.is_none()) return arg.is_none();
  if (d.is_int()) return int_of().has_value() && d.to_sym_int().maybe_int() == int_of();
  if (d.is_double()) {
    const double want = d.to_double();
    if (const auto* v = std::get_if<double>(&arg.value)) {
      return *v == want || (std::isnan(*v) && std::isnan(want));
    }
    // A float argument given as an integer (`eps=0` for `float eps=0.`).
    const auto i = int_of();
    return param.type.base == BaseType::Float && i && static_cast<double>(*i) == want;
  }
  if (d.is_bool()) {
    const auto* v = std::get_if<bool>(&arg.value);
    return v && *v == d.to_bool();
  }
  if (d.is_string()) {
    const auto* v = std::get_if<std::string>(&arg.value);
    return v && *v == d.to_string_value();
  }
  if (d.is_dtype()) {
    const auto* v = std::get_if<DType>(&arg.value);
    return v && *v == d.to_dtype();
  }
  const auto* list = std::get_if<std::vector<Argument>>(&arg.value);
  if (!list) return false;
  if (d.is_int_list()) {
    const auto& want = d.to_sym_int_list();
    if (list->size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      if (!equals_default(param, (*list)[i], Value(want[i]))) return false;
    }
    return true;
  }
  if (d.is_double_list()) {
    const auto& want = d.to_double_list();
    if (list->size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      if (!equals_default(param, (*list)[i], Value(want[i]))) return false;
    }
    return true;
  }
  if (d.is_bool_list()) {
    const auto& want = d.to_bool_list();
    if (list->size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i) {
      if (!equals_default(param, (*list)[i], Value(static_cast<bool>(want[i])))) return false;
    }
    return true;
  }
  return false;
}

// `(%x, 2, alpha=2)`: schema order, trailing defaults left out, keyword-only arguments by name.
std::string call_args_str(const Node& node) {
  const std::vector<Argument>& args = node.args();
  const std::vector<xport::Argument>& params = node.op()->parsed.arguments;
  std::vector<std::string> parts;
  if (args.size() != params.size()) {
    // A malformed call (verify() rejects it): print what is there.
    for (const Argument& a : args) parts.push_back(a.str());
  } else {
    const auto is_default = [&](size_t i) {
      return params[i].default_value &&
             equals_default(params[i], args[i], *params[i].default_value);
    };
    size_t positional = 0;
    while (positional < params.size() && !params[positional].kwarg_only) ++positional;
    size_t shown = positional;
    while (shown > 0 && is_default(shown - 1)) --shown;
    for (size_t i = 0; i < shown; ++i) parts.push_back(args[i].str());
    for (size_t i = positional; i < params.size(); ++i) {
      if (!is_default(i)) parts.push_back(params[i].name + "=" + args[i].str());
    }
  }
  std::string out = "(";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + ")";
}

std::string outputs_str(const Node& node) {
  if (!detail::is_multi_output(node) && node.outputs().size() == 1) {
    return node.outputs()[0].str();
  }
  std::string out = "(";
  for (size_t i = 0; i < node.outputs().size(); ++i) {
    out += (i ? ", " : "") + node.outputs()[i].str();
  }
  return out + (node.outputs().size() == 1 ? ",)" : ")");
}

}  // namespace

std::string TensorSpec::str() const {
  if (none) return "None";
  std::string out = std::string(dtype_short_name(dtype)) + "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    out += (i ? ", " : "") + (sizes[i] ? sym::str(sizes[i]) : std::string("?"));
  }
  return out + "]";
}

std::string Argument::str() const {
  struct Printer {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(const ValueRef& r) const {
      if (r.node == nullptr) return "%<null>";
      std::string out = "%" + r.node->name();
      if (detail::is_multi_output(*r.node) || r.index != 0) {
        out += "[" + std::to_string(r.index) + "]";
      }
      return out;
    }
    std::string operator()(sym::ExprPtr e) const { return e ? sym::str(e) : "<null>"; }
    std::string operator()(double v) const { return detail::format_double(v); }
    std::string operator()(bool v) const { return v ? "True" : "False"; }
    std::string operator()(const std::string& s) const { return quote(s); }
    std::string operator()(DType t) const { return std::string("torch.") + dtype_name(t); }
    std::string operator()(const std::vector<Argument>& list) const {
      std::string out = "[";
      for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + list[i].str();
      return out + "]";
    }
    std::string operator()(const SubgraphRef& g) const { return g.name; }
  };
  return std::visit(Printer{}, value);
}

std::string Graph::to_string() const {
  std::ostringstream out;
  out << "graph(";
  bool first = true;
  for (const Node* p : placeholders()) {
    out << (first ? "" : ", ") << "%" << p->name() << " : "
        << (p->outputs().empty() ? std::string("?") : p->outputs()[0].str());
    first = false;
  }
  out << "):\n";
  for (const auto& node : nodes_) {
    if (node->kind() == NodeKind::Placeholder) continue;
    if (node->kind() == NodeKind::Output) {
      out << "  return (";
      for (size_t i = 0; i < node->args().size(); ++i) {
        out << (i ? ", " : "") << node->args()[i].str();
      }
      out << (node->args().size() == 1 ? ",)\n" : ")\n");
      continue;
    }
    out << "  %" << node->name() << " = ";
    if (node->op() == nullptr) {
      out << "<no op>\n";
      continue;
    }
    out << detail::op_display_name(*node->op()) << call_args_str(*node) << "  # "
        << outputs_str(*node);
    for (const UnbackedBinding& b : node->unbacked_bindings()) {
      out << " " << sym::str(b.symbol) << " = "
          << (b.dim < 0 ? "value" : "size(" + std::to_string(b.dim) + ")");
    }
    if (!node->meta().source.empty()) out << "  " << node->meta().source;
    if (!node->meta().module_path.empty()) out << "  " << node->meta().module_path;
    out << "\n";
  }
  // Subgraphs after the graph that uses them, indented under their names.
  for (const auto& node : nodes_) {
    for (const SubgraphRef* sub : node->subgraphs()) {
      out << "\n" << sub->name << ":\n";
      std::istringstream lines(sub->graph->to_string());
      for (std::string line; std::getline(lines, line);) {
        out << (line.empty() ? "" : "  ") << line << "\n";
      }
    }
  }
  return out.str();
}

}  // namespace xport::ir
