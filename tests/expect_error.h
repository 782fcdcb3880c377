#pragma once
// expect_error: a call must throw an xport::Error of a kind whose message holds given fragments.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "xport/core/error.h"

namespace xport::test_support {

/// Runs `fn` and expects an xport::Error of `kind` whose message contains every fragment; returns
/// the message (empty, with a failure, when nothing was thrown).
template <class Fn>
std::string expect_error(Fn fn, ErrorKind kind, const std::vector<std::string>& fragments) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    for (const std::string& f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << "missing '" << f << "' in:\n"
                                                                  << e.what();
    }
    return e.what();
  }
  ADD_FAILURE() << "expected an xport::Error";
  return "";
}

}  // namespace xport::test_support
