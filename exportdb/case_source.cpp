#include "exportdb/case_source.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <string>

namespace xport::exportdb {
namespace {

// Calls `fn(offset)` for each character of text[begin, end) outside comments and string or
// character literals, until it returns false; returns the offset it stopped at (or end).
size_t scan_code(std::string_view text, size_t begin, size_t end,
                 const std::function<bool(size_t)>& fn) {
  size_t i = begin;
  while (i < end) {
    const char c = text[i];
    const char next = i + 1 < end ? text[i + 1] : '\0';
    if (c == '/' && next == '/') {
      i = std::min(end, text.find('\n', i));
    } else if (c == '/' && next == '*') {
      const size_t close = text.find("*/", i + 2);
      i = close == std::string_view::npos ? end : close + 2;
    } else if (c == 'R' && next == '"' && (i == 0 || !std::isalnum(text[i - 1]))) {
      const size_t open = text.find('(', i + 2);
      if (open == std::string_view::npos) return end;
      const std::string close = ")" + std::string(text.substr(i + 2, open - i - 2)) + "\"";
      const size_t stop = text.find(close, open);
      i = stop == std::string_view::npos ? end : stop + close.size();
    } else if (c == '"' || (c == '\'' && (i == 0 || !std::isalnum(text[i - 1])))) {
      size_t j = i + 1;
      while (j < end && text[j] != c) j += text[j] == '\\' ? 2 : 1;
      i = j + 1;
    } else {
      if (!fn(i)) return i;
      ++i;
    }
  }
  return end;
}

std::vector<size_t> line_starts(std::string_view text) {
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  return starts;
}

// The 0-based line holding `offset`.
size_t line_of(const std::vector<size_t>& starts, size_t offset) {
  return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), offset) -
                             starts.begin()) -
         1;
}

// The 0-based line of the `;` that ends the add( call on 0-based line `line`, or npos.
size_t call_end_line(std::string_view text, const std::vector<size_t>& starts, size_t line) {
  if (line >= starts.size()) return std::string_view::npos;
  const size_t add = text.find("add(", starts[line]);
  if (add == std::string_view::npos || line_of(starts, add) != line) return std::string_view::npos;
  int depth = 0;
  bool closed = false;
  const size_t stop = scan_code(text, add + 3, text.size(), [&](size_t i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) closed = true;
    return !(closed && text[i] == ';');
  });
  return stop == text.size() ? std::string_view::npos : line_of(starts, stop);
}

}  // namespace

std::string case_source(std::string_view text, int line,
                        const std::vector<int>& previous_case_lines) {
  const std::vector<size_t> starts = line_starts(text);
  const auto call = static_cast<size_t>(line - 1);
  size_t last = call_end_line(text, starts, call);
  if (last == std::string_view::npos) return "";
  auto line_text = [&](size_t l) {
    const size_t end = l + 1 < starts.size() ? starts[l + 1] - 1 : text.size();
    return text.substr(starts[l], end - starts[l]);
  };
  // From just after the previous case (or the function that adds the cases) ...
  size_t first = 0;
  for (int previous : previous_case_lines) {
    const size_t end = call_end_line(text, starts, static_cast<size_t>(previous - 1));
    if (end != std::string_view::npos && end < call) first = std::max(first, end + 1);
  }
  for (size_t l = call; l-- > first;) {
    if (line_text(l).starts_with("void add_")) {
      first = l + 1;
      break;
    }
  }
  // Blank lines, and the end of the block the previous case opened, are not this case's.
  auto skipped = [&](size_t l) {
    const std::string_view t = line_text(l);
    const size_t lead = t.find_first_not_of(" \t");
    return lead == std::string_view::npos || t.substr(lead).starts_with("}");
  };
  while (first < call && skipped(first)) ++first;
  // ... to the end of the call, and the closing braces of a block the setup opened.
  auto balance = [&](size_t to) {
    int depth = 0;
    const size_t end = to + 1 < starts.size() ? starts[to + 1] : text.size();
    scan_code(text, starts[first], end, [&](size_t i) {
      depth += text[i] == '{' ? 1 : text[i] == '}' ? -1 : 0;
      return true;
    });
    return depth;
  };
  while (balance(last) > 0 && last + 1 < starts.size()) ++last;

  size_t indent = std::string_view::npos;
  for (size_t l = first; l <= last; ++l) {
    const size_t lead = line_text(l).find_first_not_of(" \t");
    if (lead != std::string_view::npos) indent = std::min(indent, lead);
  }
  std::string out;
  for (size_t l = first; l <= last; ++l) {
    const std::string_view s = line_text(l);
    out += s.size() > indent ? s.substr(indent) : std::string_view();
    out += '\n';
  }
  return out;
}

}  // namespace xport::exportdb
