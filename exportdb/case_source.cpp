#include "exportdb/case_source.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
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

namespace {

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The identifiers of `text` outside comments and literals.
std::set<std::string> identifiers(std::string_view text) {
  std::set<std::string> out;
  size_t start = std::string_view::npos;
  auto flush = [&](size_t i) {
    if (start != std::string_view::npos) out.insert(std::string(text.substr(start, i - start)));
    start = std::string_view::npos;
  };
  size_t last = 0;
  scan_code(text, 0, text.size(), [&](size_t i) {
    if (i != last + 1 || !is_word(text[i])) flush(last + 1);  // a comment or literal between
    if (is_word(text[i]) && start == std::string_view::npos) start = i;
    last = i;
    return true;
  });
  flush(last + 1);
  return out;
}

// A namespace-level definition: its name and its text (the comment and template line above it,
// through its closing brace and `;`).
struct Definition {
  std::string name;
  size_t begin, end;
};

// The name a line at column 0 defines (`class Block`, `Tensor if_guard(`), or empty.
std::string defined_name(std::string_view line) {
  for (std::string_view kw : {"class ", "struct "}) {
    if (line.starts_with(kw)) {
      size_t e = kw.size();
      while (e < line.size() && is_word(line[e])) ++e;
      return std::string(line.substr(kw.size(), e - kw.size()));
    }
  }
  if (line.empty() || !std::isalpha(static_cast<unsigned char>(line[0])) ||
      line.starts_with("namespace") || line.starts_with("using") ||
      line.starts_with("template") || line.starts_with("void add_")) {
    return "";
  }
  const size_t paren = line.find('(');
  if (paren == std::string_view::npos || paren == 0) return "";
  size_t b = paren;
  while (b > 0 && is_word(line[b - 1])) --b;
  return b == paren ? "" : std::string(line.substr(b, paren - b));
}

std::vector<Definition> definitions(std::string_view text) {
  const std::vector<size_t> starts = line_starts(text);
  std::vector<Definition> out;
  for (size_t l = 0; l < starts.size(); ++l) {
    const size_t end_of_line = l + 1 < starts.size() ? starts[l + 1] - 1 : text.size();
    const std::string name = defined_name(text.substr(starts[l], end_of_line - starts[l]));
    if (name.empty()) continue;
    // Through the brace that closes the first one opened (and a `;` after it).
    int depth = 0;
    bool opened = false;
    size_t stop = scan_code(text, starts[l], text.size(), [&](size_t i) {
      if (text[i] == ';' && !opened) return false;  // a declaration
      if (text[i] == '{') ++depth, opened = true;
      if (text[i] == '}' && --depth == 0) return false;
      return true;
    });
    if (!opened || stop >= text.size()) continue;
    if (stop + 1 < text.size() && text[stop + 1] == ';') ++stop;
    size_t first = l;
    auto line_at = [&](size_t k) {
      const size_t e = k + 1 < starts.size() ? starts[k + 1] - 1 : text.size();
      return text.substr(starts[k], e - starts[k]);
    };
    while (first > 0 && (line_at(first - 1).starts_with("//") ||
                         line_at(first - 1).starts_with("template"))) {
      --first;
    }
    out.push_back({name, starts[first], stop + 1});
    l = line_of(starts, stop);
  }
  return out;
}

// The `.fn = ...` expression of a registration, up to the `,` or `}` that ends it.
std::string_view fn_expression(std::string_view registration) {
  const size_t at = registration.find(".fn = ");
  if (at == std::string_view::npos) return {};
  const size_t begin = at + 6;
  int depth = 0;
  const size_t stop = scan_code(registration, begin, registration.size(), [&](size_t i) {
    const char c = registration[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    return !(depth < 0 || (depth == 0 && c == ','));
  });
  return registration.substr(begin, stop - begin);
}

// `text` with all but its first line dedented by their least indentation.
std::string dedent_tail(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t begin = 0;;) {
    const size_t end = text.find('\n', begin);
    lines.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  size_t indent = std::string_view::npos;
  for (size_t l = 1; l < lines.size(); ++l) {
    const size_t lead = lines[l].find_first_not_of(" \t");
    if (lead != std::string_view::npos) indent = std::min(indent, lead);
  }
  std::string out;
  for (size_t l = 0; l < lines.size(); ++l) {
    const bool cut = l > 0 && indent != std::string_view::npos && lines[l].size() >= indent;
    out += std::string(cut ? lines[l].substr(indent) : lines[l]) + "\n";
  }
  return out;
}

}  // namespace

std::string program_source(std::string_view text, std::string_view registration) {
  const std::vector<Definition> defs = definitions(text);
  std::set<std::string> wanted = identifiers(registration);
  std::set<size_t> chosen;
  // What the registration names, then what those name (helpers, submodules, base classes).
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < defs.size(); ++i) {
      if (chosen.contains(i) || !wanted.contains(defs[i].name)) continue;
      chosen.insert(i);
      const std::set<std::string> more =
          identifiers(text.substr(defs[i].begin, defs[i].end - defs[i].begin));
      wanted.insert(more.begin(), more.end());
      grew = true;
    }
  }
  std::string out;
  for (size_t i : chosen) {
    out += std::string(text.substr(defs[i].begin, defs[i].end - defs[i].begin)) + "\n\n";
  }
  // What the case sets up before its add( call (the module, the tensors a lambda captures).
  const size_t add = registration.find("add(");
  for (size_t l = 0; add != std::string_view::npos && l < add;) {
    const size_t newline = registration.find('\n', l);
    const size_t end = newline == std::string_view::npos ? add : std::min(add, newline + 1);
    const std::string_view line = registration.substr(l, end - l);
    const size_t lead = line.find_first_not_of(" \t\n");
    if (lead != std::string_view::npos && line.substr(lead) != "{\n") {
      out += std::string(line.substr(std::min(lead, size_t{2})));
    }
    l = end;
  }
  const std::string_view fn = fn_expression(registration);
  const size_t lambda = fn.find('[');
  if (lambda != std::string_view::npos && fn.find(']', lambda) != std::string_view::npos &&
      fn.find('{') != std::string_view::npos) {
    // adapt([...](...) { ... }): the lambda itself.
    const size_t close = fn.rfind(')');
    const bool wrapped = fn.starts_with("adapt(") && close != std::string_view::npos;
    out += "auto program = " +
           dedent_tail(wrapped ? fn.substr(lambda, close - lambda) : fn.substr(lambda));
    while (!out.empty() && out.back() == '\n') out.pop_back();
    out += ";\n";
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') {
    out.pop_back();
  }
  return out;
}

}  // namespace xport::exportdb
