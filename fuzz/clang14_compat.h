#pragma once
// Force-included into the fuzz build by clang < 15, which lacks __builtin_source_location:
// libstdc++ 12's <source_location> is then empty, so std::source_location is taken from
// <experimental/source_location>, built on __builtin_FILE/__builtin_LINE (same members, evaluated
// at the call site; column() is 0 and function_name() the plain name).
#include <version>
#if !defined(__cpp_lib_source_location) && defined(__GLIBCXX__)
#include <experimental/source_location>
namespace std {
using source_location = experimental::source_location;
}  // namespace std
#endif
