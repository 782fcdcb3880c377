#include "tools/xport/program_inputs.h"

#include <cstdio>
#include <iterator>
#include <optional>

#include "xport/core/dtype.h"
#include "xport/core/error.h"
#include "xport/core/expr.h"
#include "xport/ir/ir.h"

namespace xport::tools {

std::string contract_type(const InputContract& c) {
  switch (c.kind) {
    case InputContract::Kind::Tensor:
      return ir::TensorSpec::contiguous(c.dtype, c.sizes).str();
    case InputContract::Kind::TensorList: {
      std::string s = "[";
      for (size_t i = 0; i < c.elements.size(); ++i) {
        s += (i ? ", " : "") + contract_type(c.elements[i]);
      }
      return s + "]";
    }
    case InputContract::Kind::Int:
      return "int = " + std::to_string(c.int_value) + " (specialised)";
    case InputContract::Kind::Float: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.17g", c.float_value);
      return std::string("float = ") + buf + " (specialised)";
    }
    case InputContract::Kind::Bool:
      return std::string("bool = ") + (c.int_value ? "True" : "False") + " (specialised)";
  }
  return "?";
}

std::string contract_lines(const std::vector<InputContract>& contract,
                           const std::vector<SymbolSpec>& symbols) {
  std::string s;
  for (const InputContract& c : contract) s += "\n  " + c.name + ": " + contract_type(c);
  for (const SymbolSpec& sym : symbols) {
    s += "\n  " + sym.name + ": " + (sym.dim_name.empty() ? sym.source : sym.dim_name) + " in " +
         sym.range.str() + "  (" + sym.source + ")";
  }
  return s;
}

std::string expected_inputs(const std::vector<InputContract>& contract,
                            const std::vector<SymbolSpec>& symbols) {
  return "\nthe program's inputs:" + std::string(contract.empty() ? " (none)" : "") +
         contract_lines(contract, symbols);
}

std::map<std::string, std::string> assignments_by_name(const std::vector<std::string>& args,
                                                       const std::string& command,
                                                       const std::string& option,
                                                       const std::vector<InputContract>& contract,
                                                       const std::vector<SymbolSpec>& symbols) {
  std::map<std::string, std::string> by_name;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    XPORT_CHECK(eq != std::string::npos && eq > 0, InvalidInput, command, ": ", option, " '", arg,
                "' has no NAME=; write ", option, " NAME=VALUE with one of the program's inputs",
                expected_inputs(contract, symbols));
    const std::string name = arg.substr(0, eq);
    bool known = false;
    for (const InputContract& c : contract) known = known || c.name == name;
    XPORT_CHECK(known, InvalidInput, command, ": ", option, " ", name,
                ": the program has no input named '", name, "'",
                expected_inputs(contract, symbols));
    XPORT_CHECK(by_name.emplace(name, arg.substr(eq + 1)).second, InvalidInput, command, ": ",
                option, " ", name, " is given twice");
  }
  return by_name;
}

bool is_plain(const InputContract& c) {
  return c.kind == InputContract::Kind::Int || c.kind == InputContract::Kind::Float ||
         c.kind == InputContract::Kind::Bool;
}

namespace {

// `parse(text, &used)` (std::stoll, std::stod) when it reads all of `text`; nullopt otherwise.
template <class Parse>
auto parse_whole(const std::string& text, const Parse& parse)
    -> std::optional<decltype(parse(text, nullptr))> {
  size_t used = 0;
  try {
    const auto v = parse(text, &used);
    if (used > 0 && used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

Value plain_input(const InputContract& c, const std::string* literal, const std::string& command) {
  switch (c.kind) {
    case InputContract::Kind::Int: {
      if (!literal) return Value(c.int_value);
      const auto v = parse_whole(*literal, [](const std::string& t, size_t* used) {
        return static_cast<int64_t>(std::stoll(t, used));
      });
      XPORT_CHECK(v.has_value(), InvalidInput, command, ": input ", c.name, " is an int; '",
                  *literal, "' is not one (write e.g. ", c.name, "=", c.int_value, ")");
      return Value(*v);
    }
    case InputContract::Kind::Float: {
      if (!literal) return Value(c.float_value);
      const auto v = parse_whole(
          *literal, [](const std::string& t, size_t* used) { return std::stod(t, used); });
      XPORT_CHECK(v.has_value(), InvalidInput, command, ": input ", c.name, " is a float; '",
                  *literal, "' is not one (write e.g. ", c.name, "=0.5)");
      return Value(*v);
    }
    case InputContract::Kind::Bool: {
      if (!literal) return Value(c.int_value != 0);
      if (*literal == "true" || *literal == "True" || *literal == "1") return Value(true);
      if (*literal == "false" || *literal == "False" || *literal == "0") return Value(false);
      XPORT_FAIL(InvalidInput, command, ": input ", c.name, " is a bool; '", *literal,
                 "' is not one (write true or false)");
    }
    case InputContract::Kind::Tensor:
    case InputContract::Kind::TensorList:
      break;
  }
  XPORT_FAIL(Internal, "plain_input: input ", c.name, " is not a plain value");
}

std::string shape_str(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (size_t d = 0; d < sizes.size(); ++d) s += (d ? ", " : "") + std::to_string(sizes[d]);
  return s + "]";
}

std::string ms_str(double ms) {
  char buf[32];
  if (ms >= 1000) {
    std::snprintf(buf, sizeof(buf), "%.2f s", ms / 1000);
  } else if (ms < 1) {
    // Small programs run in microseconds: three decimals of a millisecond would hide them.
    std::snprintf(buf, sizeof(buf), ms < 0.01 ? "%.2f us" : "%.1f us", ms * 1000);
  } else {
    std::snprintf(buf, sizeof(buf), ms < 10 ? "%.3f ms" : ms < 100 ? "%.2f ms" : "%.1f ms", ms);
  }
  return buf;
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1e", v);
  return buf;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

bool show_refusals(const runtime::Program& program,
                   const std::vector<std::pair<std::string, std::vector<Value>>>& outside,
                   std::ostream& out) {
  out << "\nrefused by the runtime (outside the contract):\n";
  for (const auto& [what, inputs] : outside) {
    try {
      program.run_values(inputs);
      out << "FAILED: the runtime accepted " << what << "\n";
      return false;
    } catch (const Error& e) {
      out << "  " << what << ": " << e.what() << "\n";
    }
  }
  return true;
}

std::string bytes_str(int64_t bytes) {
  static const char* const kUnits[] = {"kB", "MB", "GB", "TB"};
  if (bytes < 1000) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes) / 1000;
  size_t unit = 0;
  while (value >= 999.95 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", value, kUnits[unit]);
  return buf;
}

}  // namespace xport::tools
