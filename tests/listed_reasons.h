// Lists of known differences kept beside the tests that allow them: one "name: reason" line per
// entry, '#' starting a comment line (tests/ops/schema_differences.txt,
// tests/serde/torch_pt2_refusals.txt).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

namespace xport::testing {

/// name -> reason; a missing file or a line without ": " fails the calling test.
inline std::map<std::string, std::string> listed_reasons(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path << " is missing";
  std::map<std::string, std::string> listed;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) {
      ADD_FAILURE() << path << ": no ': reason' in " << line;
      continue;
    }
    listed[line.substr(0, colon)] = line.substr(colon + 2);
  }
  return listed;
}

}  // namespace xport::testing
