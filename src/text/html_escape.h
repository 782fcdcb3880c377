#pragma once
// Text into HTML: what the ExportDB site and `xport view`'s page both write.

#include <string>
#include <string_view>

namespace xport::text {

/// `s` with &, <, > and " escaped, for element text and attribute values.
inline std::string escape_html(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace xport::text
