// ExportedProgram::transform and the graph editing API a pass is written with; the metadata
// check that follows every pass; run_decompositions keeping what its table leaves out.
#include <gtest/gtest.h>

#include "expect_error.h"
#include "xport/xport.h"

namespace xport {
namespace {

ExportedProgram small_program() {
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 1, 32)}}, {}};
  return export_program(
      [](const Tensor& x, const Tensor& w) { return relu(matmul(x, w) * 2.0) + 1.0; },
      {randn({4, 3}, 0), randn({3, 5}, 1)}, options);
}

size_t count(const ExportedProgram& p, const std::string& op) {
  return p.graph().find_nodes(op).size();
}

TEST(Transform, ReplacesAnOpWithFindInsertReplaceErase) {
  const ExportedProgram p = small_program();
  ASSERT_EQ(count(p, "aten::relu"), 1u) << p.to_string();
  // relu(y) becomes clamp(y, 0.5): find, insert before, rewire, erase.
  const ExportedProgram q = p.transform([](ir::Graph& g) {
    const OpDef& clamp_op = find_op("aten::clamp");
    for (ir::Node* relu : g.find_nodes("aten::relu")) {
      ir::Node* clamp = g.insert_call(relu->position(), clamp_op,
                                      {relu->arg("self"), 0.5, ir::Argument()}, relu->outputs(),
                                      relu->meta());
      g.replace_all_uses(relu->out(), clamp->out());
      g.erase(relu);
    }
  });
  EXPECT_EQ(count(q, "aten::relu"), 0u);
  EXPECT_EQ(count(q, "aten::clamp"), 1u);
  EXPECT_EQ(count(p, "aten::relu"), 1u) << "the pass ran on a copy";
  const Tensor x = randn({9, 3}, 2), w = randn({3, 5}, 3);
  const Tensor clamped = call_op("aten::clamp", {matmul(x, w) * 2.0, 0.5}).to_tensor();
  EXPECT_TRUE(allclose(q.run({x, w})[0], clamped + 1.0));
  EXPECT_EQ(q.range_constraints(), p.range_constraints());
}

TEST(Transform, ANodeAppendedAfterAResultTakesItsPlaceInTheSignature) {
  const ExportedProgram p = small_program();
  const ExportedProgram q = p.transform([](ir::Graph& g) {
    ir::Node* add = g.find_nodes("aten::add.Scalar").at(0);
    ir::Node* sub = g.insert_call(add->position() + 1, find_op("aten::sub.Scalar"),
                                  {add->out(), 1.0, 1}, add->outputs());
    g.replace_all_uses(add->out(), sub->out());
  });
  ASSERT_EQ(q.signature().outputs.size(), 1u);
  EXPECT_EQ(q.signature().outputs[0].name, "sub");
  const Tensor x = randn({2, 3}, 4), w = randn({3, 5}, 5);
  EXPECT_TRUE(allclose(q.run({x, w})[0], relu(matmul(x, w) * 2.0)));
}

TEST(Transform, ANodeWhoseRecordedSizesDisagreeWithItsMetaFunctionIsRefused) {
  const ExportedProgram p = small_program();
  test_support::expect_error(
      [&] {
        p.transform([](ir::Graph& g) {
          ir::Node* relu = g.find_nodes("aten::relu").at(0);
          // sum over dim 1 has one dim fewer than the relu it claims to replace.
          ir::Node* sum = g.insert_call(relu->position(), find_op("aten::sum.dim_IntList"),
                                        {relu->arg("self"), std::vector<ir::Argument>{1}, false,
                                         ir::Argument()},
                                        relu->outputs());
          g.replace_all_uses(relu->out(), sum->out());
          g.erase(relu);
        });
      },
      ErrorKind::Internal, {"%sum", "aten::sum.dim_IntList", "f32[s0, 5]", "meta function gives",
                            "f32[2]", "s0=2"});
}

TEST(Transform, EraseRefusesANodeStillInUseAndPassesMayNotDropInputs) {
  const ExportedProgram p = small_program();
  test_support::expect_error(
      [&] { p.transform([](ir::Graph& g) { g.erase(g.find_nodes("aten::relu").at(0)); }); },
      ErrorKind::InvalidInput, {"%relu", "still used by %add", "replace_all_uses"});
  test_support::expect_error([&] { p.transform([](ir::Graph& g) { g.find_nodes("aten::nope"); }); },
                             ErrorKind::UnsupportedOp, {"aten::nope"});
}

TEST(Transform, EraseRefusesANodeThatGivesADataDependentSymbolItsValue) {
  const ExportedProgram p = export_program(
      [](const std::vector<Value>& in) {
        const SymInt n = in[0].to_tensor().item_int();
        constrain_as_size(n, 0, 5);
        return std::vector<Tensor>{zeros({n, 2})};
      },
      {full({}, 3, DType::Int64)});
  test_support::expect_error(
      [&] { p.transform([](ir::Graph& g) { g.erase(g.find_nodes("aten::item").at(0)); }); },
      ErrorKind::InvalidInput, {"%item", "data-dependent symbol(s) u0", "it stays"});
}

TEST(Transform, AnIdentityPassGivesTheSameProgram) {
  const ExportedProgram p = small_program();
  EXPECT_EQ(p.transform([](ir::Graph&) {}).to_string(), p.to_string());
}

TEST(RunDecompositions, KeepsEveryOpLeftOutOfTheTable) {
  const ExportOptions options = [] {
    ExportOptions o;
    o.dynamic_shapes = {{{0, Dim("batch", 1, 8)}}, {}};
    return o;
  }();
  const ExportedProgram p = export_program(
      [](const Tensor& x, const Tensor& w) { return silu(conv2d(x, w)).flatten(1).softmax(-1); },
      {randn({2, 3, 8, 8}, 0), randn({4, 3, 3, 3}, 1)}, options);
  ASSERT_EQ(count(p, "aten::silu"), 1u) << p.to_string();
  DecompositionTable table = core_decompositions();
  ASSERT_EQ(table.erase("aten::silu"), 1u);
  const ExportedProgram kept = p.run_decompositions(table);
  EXPECT_EQ(count(kept, "aten::silu"), 1u) << kept.to_string();
  for (const auto& node : kept.graph().nodes()) {
    if (node->kind() != ir::NodeKind::Call) continue;
    EXPECT_TRUE(node->op()->core || node->op()->qualified_name == "aten::silu")
        << node->op()->qualified_name;
  }
  const Tensor x = randn({5, 3, 8, 8}, 2), w = randn({4, 3, 3, 3}, 3);
  EXPECT_TRUE(allclose(kept.run({x, w})[0], p.run({x, w})[0], 1e-5, 1e-6));
  // The verifier's metadata check holds after the decomposition too.
  EXPECT_EQ(kept.transform([](ir::Graph&) {}).to_string(), kept.to_string());
}

}  // namespace
}  // namespace xport
