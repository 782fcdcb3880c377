#pragma once
// The C++ text of one ExportDB case, cut from its source file: the `add(cases, {...});` call at
// the case's line, with what the case sets up before it (locals a lambda captures) and the
// closing braces of a block it opens; and the program it exports (the definitions it uses and
// its lambda).

#include <string>
#include <string_view>
#include <vector>

namespace xport::exportdb {

/// `file_text` is the whole source file; `line` (1-based) the line of the case's `add(` call;
/// `previous_case_lines` the lines of the calls of the file's cases before it (any order).
/// Returns the lines, dedented; empty when no `add(` is at `line`.
std::string case_source(std::string_view file_text, int line,
                        const std::vector<int>& previous_case_lines);

/// The program a case exports, cut from `file_text`: every function, class or template defined
/// at namespace level that `registration` (the case's case_source) names, with what those name
/// in turn (in file order, each with the comment above it), then what the case sets up before
/// its add( call, then the `.fn = ...` expression when it is a lambda. Empty when there is none.
std::string program_source(std::string_view file_text, std::string_view registration);

}  // namespace xport::exportdb
