#include "core/json_file.h"

#include <fstream>

#include "xport/core/error.h"

namespace xport {

nlohmann::json read_json_file(const std::string& path, std::string_view who) {
  std::ifstream in(path);
  XPORT_CHECK(in.good(), InvalidInput, who, ": cannot read ", path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    XPORT_FAIL(InvalidInput, who, ": ", path, " is not JSON: ", e.what());
  }
}

}  // namespace xport
