#pragma once
// Reading a JSON file that configures something (a tokenizer, a model folder): one place for the
// error a user sees when it is missing or malformed.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace xport {

/// The parsed contents of `path`. InvalidInput naming `who` and the file when it cannot be read
/// or is not JSON.
nlohmann::json read_json_file(const std::string& path, std::string_view who);

}  // namespace xport
