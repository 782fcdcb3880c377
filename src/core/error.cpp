#include "xport/core/error.h"

#include <cstdlib>

namespace xport {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::ConstraintViolation:
      return "ConstraintViolation";
    case ErrorKind::DataDependent:
      return "DataDependent";
    case ErrorKind::UnsupportedOp:
      return "UnsupportedOp";
    case ErrorKind::InvalidSpec:
      return "InvalidSpec";
    case ErrorKind::InvalidInput:
      return "InvalidInput";
    case ErrorKind::InvalidArchive:
      return "InvalidArchive";
    case ErrorKind::Internal:
      return "Internal";
  }
  return "Unknown";
}

Error::Error(ErrorKind kind, const std::string& message, std::string exportdb_case)
    : std::runtime_error(message), kind_(kind), exportdb_case_(std::move(exportdb_case)) {}

namespace detail {
[[noreturn]] void throw_error(ErrorKind kind, const std::string& message, const char* file,
                              int line) {
  // Internal errors are our bugs: say where, so a report can point at the line.
  if (kind == ErrorKind::Internal) {
    throw Error(kind, message + " [internal error at " + file + ":" + std::to_string(line) + "]");
  }
  throw Error(kind, message);
}
[[noreturn]] void throw_error_with_case(ErrorKind kind, const std::string& message,
                                        const char* exportdb_case) {
  // The page is exportdb::case_page(name) of the site `xport exportdb` writes (a layer above
  // this one; tests/exportdb checks that the two agree).
  throw Error(kind,
              message + "\nsee ExportDB case '" + exportdb_case + "' (cases/" + exportdb_case +
                  ".html in the site `xport exportdb OUT_DIR` writes)",
              exportdb_case);
}
}  // namespace detail

}  // namespace xport
