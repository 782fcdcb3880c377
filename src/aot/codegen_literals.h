#pragma once
// C++ literals for generated code: integers, doubles (non-finite ones too), strings, lists and
// tables of them, scalars; and the questions the generator asks of arguments.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "xport/core/scalar.h"
#include "xport/ir/ir.h"

namespace xport::aot::detail {

inline std::string int_literal(int64_t v) {
  if (v == INT64_MIN) return "(-INT64_C(9223372036854775807) - 1)";
  return "INT64_C(" + std::to_string(v) + ")";
}

inline std::string double_literal(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) {
    return v > 0 ? "std::numeric_limits<double>::infinity()"
                 : "-std::numeric_limits<double>::infinity()";
  }
  std::ostringstream out;
  out << std::hexfloat << v;  // exact
  return out.str();
}

inline std::string string_literal(const std::string& s) {
  std::ostringstream out;
  out << '"';
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (c >= 0x20 && c < 0x7f) {
      out << c;
    } else {
      out << '\\' << static_cast<char>('0' + (c >> 6)) << static_cast<char>('0' + ((c >> 3) & 7))
          << static_cast<char>('0' + (c & 7));
    }
  }
  out << '"';
  return out.str();
}

inline std::string to_string_int(int64_t v) { return std::to_string(v); }
inline std::string identity(const std::string& s) { return s; }

template <class T, class F>
inline std::string list_literal(const std::vector<T>& values, F&& element) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + element(values[i]);
  return out + "}";
}

// `{}` is no array: an empty table gets one unused entry.
template <class T, class F>
inline std::string table_literal(const std::vector<T>& values, F&& element) {
  return values.empty() ? "{0}" : list_literal(values, element);
}

inline std::string scalar_literal(const Scalar& s) {
  if (s.is_bool()) return std::string("xport::Scalar(") + (s.to_bool() ? "true" : "false") + ")";
  if (s.is_int()) return "xport::Scalar(" + int_literal(s.to_int()) + ")";
  return "xport::Scalar(" + double_literal(s.to_double()) + ")";
}

// The C++ parameter type without `const` and `&`.
inline std::string bare_type(std::string type) {
  if (type.rfind("const ", 0) == 0) type = type.substr(6);
  if (!type.empty() && type.back() == '&') type.pop_back();
  return type;
}

inline std::string unwrap_optional(const std::string& type) {
  const std::string prefix = "std::optional<";
  if (type.rfind(prefix, 0) != 0) return type;
  return type.substr(prefix.size(), type.size() - prefix.size() - 1);
}

// Whether an argument's value depends on the symbols (a size, a list of sizes).
inline bool mentions_symbol(const ir::Argument& a) {
  if (const auto* e = std::get_if<sym::ExprPtr>(&a.value)) return !sym::free_symbols(*e).empty();
  const auto* list = std::get_if<std::vector<ir::Argument>>(&a.value);
  return list != nullptr && std::any_of(list->begin(), list->end(), mentions_symbol);
}

inline bool sizes_mention_symbol(const ir::Node& node) {
  for (const ir::TensorSpec& spec : node.outputs()) {
    for (sym::ExprPtr size : spec.sizes) {
      if (!sym::free_symbols(size).empty()) return true;
    }
  }
  return false;
}

}  // namespace xport::aot::detail
