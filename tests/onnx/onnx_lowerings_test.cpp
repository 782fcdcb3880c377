// Every core op has an ONNX lowering, or a line saying why not in onnx_lowerings_missing.txt.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "onnx/lowering.h"
#include "xport/ops/op_registry.h"

namespace xport::onnx {
namespace {

std::map<std::string, std::string> listed_missing() {
  std::map<std::string, std::string> listed;
  std::ifstream in(std::string(XPORT_TESTS_DIR) + "/onnx/onnx_lowerings_missing.txt");
  EXPECT_TRUE(in.good()) << "cannot read onnx_lowerings_missing.txt";
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(": ");
    listed[line.substr(0, colon)] = colon == std::string::npos ? "" : line.substr(colon + 2);
  }
  return listed;
}

TEST(OnnxLowerings, EveryCoreOpIsLoweredOrListedWithItsReason) {
  const std::map<std::string, std::string> listed = listed_missing();
  int lowered = 0, core = 0;
  for (const OpDef* op : all_ops()) {
    // Composite ops never reach a graph (they are traced as their decomposition), and a
    // runtime assertion goes to the model's metadata.
    if (!op->core || op->kind == OpKind::Composite || has_tag(*op, Tag::RuntimeAssert)) continue;
    ++core;
    const bool has = find_lowering(*op) != nullptr;
    lowered += has ? 1 : 0;
    const bool is_listed = listed.count(op->qualified_name) > 0;
    EXPECT_TRUE(has || is_listed) << op->qualified_name
                                  << " has no ONNX lowering: write one, or list it with the "
                                     "reason in tests/onnx/onnx_lowerings_missing.txt";
    EXPECT_FALSE(has && is_listed) << op->qualified_name
                                   << " has a lowering now: remove it from the list";
  }
  for (const auto& [name, reason] : listed) {
    const OpDef* op = try_find_op(name);
    EXPECT_TRUE(op != nullptr && op->core) << name << " is listed but is not a core op";
  }
  RecordProperty("lowered", lowered);
  std::cout << lowered << " of " << core << " core ops lowered to ONNX\n";
}

}  // namespace
}  // namespace xport::onnx
