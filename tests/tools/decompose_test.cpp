// `xport decompose`: an archive's program rewritten into core ops, saved, and still equal to the
// original on inputs inside the contract.
#include "tools/xport/decompose.h"

#include <gtest/gtest.h>

#include <sstream>

#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::TempFile;

TEST(Decompose, WritesACoreOnlyArchiveThatComputesTheSame) {
  nn::LayerNorm norm(std::vector<int64_t>{8});
  norm.eval();
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}};
  const ExportedProgram program = export_program(
      norm, [&](const Tensor& x) { return softmax(gelu(norm.forward(x)), -1); }, {randn({3, 8}, 1)},
      options);
  TempFile in("decompose-in"), out("decompose-out");
  save(program, in.path());
  std::ostringstream report;
  EXPECT_EQ(tools::run_decompose(in.path(), out.path(), report), 0);

  const ExportedProgram core = load(out.path());
  for (const auto& node : core.graph().nodes()) {
    if (node->kind() == ir::NodeKind::Call) {
      EXPECT_TRUE(node->op()->core) << node->op()->qualified_name << " is not a core op";
    }
  }
  for (int64_t n : {2, 5, 64}) {
    const Tensor x = randn({n, 8}, static_cast<uint64_t>(n));
    EXPECT_TRUE(allclose(core.run({x}).at(0), program.run({x}).at(0), 1e-5, 1e-6)) << n;
  }
  EXPECT_EQ(core.range_constraints(), program.range_constraints());
  EXPECT_NE(report.str().find("calls outside the core set"), std::string::npos) << report.str();
}

}  // namespace
}  // namespace xport
