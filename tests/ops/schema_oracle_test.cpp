// Every registered aten op's schema against PyTorch 2.13's (torch.ops.aten.<op>.<overload>
// ._schema). PyTorch's text is parsed by xport's schema parser and both are compared in one
// canonical form (defaults by value: PyTorch prints `stride=[1, 1]`, `eps=1.0000000000000001e-05`,
// `"none"` where the op's source says `stride=1`, `eps=1e-05`, `'none'`). A difference fails
// unless tests/ops/schema_differences.txt lists it with its reason; a listed op whose schema now
// matches fails too, so the list stays true. A second test holds xport's op list against every
// overload PyTorch tags `core`; those not here yet are listed in tests/ops/core_ops_missing.txt.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

#include "listed_reasons.h"
#include "python_oracle.h"
#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;

// The schema with every default printed from its parsed value.
std::string canonical(const Schema& schema) {
  Schema s = schema;
  for (Argument& a : s.arguments)
    if (a.default_value) a.default_text = a.default_value->str();
  return s.str();
}

// PyTorch's text in canonical form, or why it does not parse.
std::string canonical_text(const std::string& text) {
  try {
    return canonical(parse_schema(text));
  } catch (const Error& e) {
    return std::string("(does not parse: ") + e.what() + ")";
  }
}

TEST(SchemaOracle, EveryAtenAndQuantizedSchemaMatchesPyTorchOrIsListedWithItsReason) {
  const fs::path dir = fs::temp_directory_path() / ("xport_schemas_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::map<std::string, std::string> ours;
  {
    std::ofstream names(dir / "names.txt");
    for (const OpDef* op : all_ops()) {
      if (op->parsed.ns != "aten" && op->parsed.ns != "quantized_decomposed") continue;
      ours[op->qualified_name] = canonical(op->parsed);
      names << op->qualified_name << "\n";
    }
  }
  const testing::PythonRun run = testing::run_python(
      std::string(XPORT_TESTS_DIR) + "/ops/torch_schemas.py", "", dir / "torch.json",
      dir / "names.txt");
  ASSERT_TRUE(run.ok()) << run.log;
  nlohmann::json torch;
  std::ifstream(dir / "torch.json") >> torch;
  fs::remove_all(dir);

  std::map<std::string, std::string> listed =
      testing::listed_reasons(std::string(XPORT_TESTS_DIR) + "/ops/schema_differences.txt");
  int differences = 0;
  for (const auto& [name, schema] : ours) {
    const nlohmann::json& theirs = torch.at(name);
    const bool same = !theirs.is_null() && canonical_text(theirs.get<std::string>()) == schema;
    const auto entry = listed.find(name);
    if (same) {
      EXPECT_EQ(entry, listed.end()) << name << " is listed in schema_differences.txt but now "
                                     << "matches PyTorch: remove the line";
      continue;
    }
    ++differences;
    const std::string torch_text = theirs.is_null() ? "(no such op)" : theirs.get<std::string>();
    if (entry == listed.end()) {
      ADD_FAILURE() << name << " differs from PyTorch 2.13 and is not listed:\n  xport: " << schema
                    << "\n  torch: " << torch_text;
    } else {
      std::cout << "listed difference " << name << ": " << entry->second << "\n  xport: "
                << schema << "\n  torch: " << torch_text << "\n";
      listed.erase(entry);
    }
  }
  for (const auto& [name, reason] : listed)
    ADD_FAILURE() << name << " is listed in schema_differences.txt but is not a registered op";
  std::cout << ours.size() << " aten and quantized_decomposed schemas compared, " << differences
            << " listed differences\n";
}

// Every overload PyTorch 2.13 tags core is registered, or listed with its reason; a listed op
// that is now registered (or no longer core) fails, so the list only shrinks.
TEST(CoreOps, EveryCoreAtenOverloadIsRegisteredOrListed) {
  const fs::path out =
      fs::temp_directory_path() / ("xport_core_ops_" + std::to_string(getpid()) + ".txt");
  const testing::PythonRun run =
      testing::run_python(std::string(XPORT_TESTS_DIR) + "/ops/torch_core_ops.py", "", out);
  ASSERT_TRUE(run.ok()) << run.log;
  std::set<std::string> core;
  {
    std::ifstream in(out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) core.insert(line);
  }
  fs::remove(out);
  fs::remove(out.string() + ".stderr");
  ASSERT_GE(core.size(), 150u) << "PyTorch listed too few core ops; is the oracle PyTorch 2.13?";

  std::map<std::string, std::string> listed =
      testing::listed_reasons(std::string(XPORT_TESTS_DIR) + "/ops/core_ops_missing.txt");
  int registered = 0;
  for (const std::string& name : core) {
    const bool here = try_find_op(name) != nullptr;
    const auto entry = listed.find(name);
    if (here) {
      ++registered;
      EXPECT_EQ(entry, listed.end())
          << name << " is registered but listed in core_ops_missing.txt: remove the line";
    } else {
      EXPECT_NE(entry, listed.end())
          << name << " is a core ATen op of PyTorch 2.13 that xport does not register (nor list "
          << "in tests/ops/core_ops_missing.txt with its reason)";
    }
    if (entry != listed.end()) listed.erase(entry);
  }
  for (const auto& [name, reason] : listed)
    ADD_FAILURE() << name << " is listed in core_ops_missing.txt but PyTorch does not tag it core";
  std::cout << registered << " of " << core.size() << " core ATen overloads registered\n";
}

}  // namespace
}  // namespace xport
