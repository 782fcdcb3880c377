#pragma once
/// \file Errors: every failure in xport is an xport::Error with a kind.

#include <sstream>
#include <stdexcept>
#include <string>

namespace xport {

/// What went wrong, coarsely; the message says the rest.
enum class ErrorKind {
  ConstraintViolation,
  DataDependent,
  UnsupportedOp,
  InvalidSpec,
  InvalidInput,
  InvalidArchive,
  Internal,
};

const char* to_string(ErrorKind kind);

/// The one exception type xport throws.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, std::string exportdb_case = {});
  ErrorKind kind() const { return kind_; }
  /// Name of the ExportDB case that shows the fix, or empty.
  const std::string& exportdb_case() const { return exportdb_case_; }

 private:
  ErrorKind kind_;
  std::string exportdb_case_;
};

namespace detail {
// Streams every argument into one string; used by XPORT_CHECK.
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
[[noreturn]] void throw_error(ErrorKind kind, const std::string& message, const char* file,
                              int line);
/// Throws with the message followed by "see ExportDB case '<name>'", and the case recorded.
[[noreturn]] void throw_error_with_case(ErrorKind kind, const std::string& message,
                                        const char* exportdb_case);
}  // namespace detail

}  // namespace xport

/// Throws xport::Error(kind, message) when `cond` is false. The message is built only on failure.
#define XPORT_CHECK(cond, kind, ...)                                                               \
  do {                                                                                             \
    if (!(cond)) [[unlikely]] {                                                                    \
      ::xport::detail::throw_error(::xport::ErrorKind::kind, ::xport::detail::concat(__VA_ARGS__), \
                                   __FILE__, __LINE__);                                            \
    }                                                                                              \
  } while (0)

/// XPORT_CHECK whose message ends by naming the ExportDB case that shows the fix.
#define XPORT_CHECK_CASE(cond, kind, exportdb_case, ...)                                           \
  do {                                                                                             \
    if (!(cond)) [[unlikely]] {                                                                    \
      ::xport::detail::throw_error_with_case(::xport::ErrorKind::kind,                             \
                                             ::xport::detail::concat(__VA_ARGS__), exportdb_case); \
    }                                                                                              \
  } while (0)

/// Throws xport::Error(kind, message) unconditionally.
#define XPORT_FAIL(kind, ...)                                                                  \
  ::xport::detail::throw_error(::xport::ErrorKind::kind, ::xport::detail::concat(__VA_ARGS__), \
                               __FILE__, __LINE__)
