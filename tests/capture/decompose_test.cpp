#include <gtest/gtest.h>

#include "xport/capture/export.h"
#include "xport/nn/models.h"
#include "xport/xport.h"

namespace xport {
namespace {

std::vector<std::string> non_core_ops(const ExportedProgram& p) {
  std::vector<std::string> out;
  for (const auto& node : p.graph().nodes()) {
    if (node->kind() == ir::NodeKind::Call && !node->op()->core) {
      out.push_back(node->op()->qualified_name);
    }
  }
  return out;
}

Tensor ids(int64_t batch, int64_t seq, uint64_t seed) {
  std::vector<int64_t> v(static_cast<size_t>(batch * seq));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>((i * 131 + seed) % 50);
  return from_vector(v, {batch, seq});
}

TEST(RunDecompositions, LeavesOnlyCoreOpsAndKeepsResultsAndContract) {
  models::Gpt2Config config;
  config.vocab_size = 50;
  config.n_positions = 32;
  config.n_embd = 16;
  config.n_layer = 2;
  config.n_head = 2;
  auto model = models::gpt2(config);
  model->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 8)}, {1, Dim("seq", 2, 32)}}};
  const ExportedProgram p = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {ids(2, 5, 0)}, options);
  ASSERT_FALSE(non_core_ops(p).empty()) << "the test needs non-core ops to decompose";
  const ExportedProgram core = p.run_decompositions();
  EXPECT_EQ(non_core_ops(core), std::vector<std::string>{}) << core.to_string();
  EXPECT_EQ(core.range_constraints(), p.range_constraints());
  for (auto [n, t] : std::vector<std::pair<int64_t, int64_t>>{{2, 2}, {3, 7}, {2, 32}}) {
    const Tensor x = ids(n, t, static_cast<uint64_t>(t));
    EXPECT_TRUE(allclose(core.run({x}).at(0), p.run({x}).at(0), 1e-5, 1e-6)) << n << "x" << t;
  }
  EXPECT_THROW(core.run({ids(2, 33, 0)}), Error);
  // Nodes keep the user's line and module path of the node they came from.
  const std::string text = core.to_string();
  EXPECT_NE(text.find("decompose_test.cpp:"), std::string::npos) << text;
  EXPECT_NE(text.find("transformer.h.1.attn"), std::string::npos) << text;
}

TEST(RunDecompositions, AnEmptyTableReproducesTheProgram) {
  auto fn = [](const Tensor& x) { return x.t().matmul(x); };
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("n")}}};
  const ExportedProgram p = export_program(fn, {randn({4, 3}, 0)}, options);
  const ExportedProgram same = p.run_decompositions({});
  EXPECT_EQ(same.graph().to_string(), p.graph().to_string());
}

}  // namespace
}  // namespace xport

namespace xport {
namespace {

TEST(RunDecompositions, ReferenceModelsDecomposeToCoreOps) {
  models::BertConfig bert_config;
  bert_config.num_layers = 1;
  struct Case {
    const char* name;
    std::shared_ptr<nn::Module> module;
    Tensor example, other;
    DimSpec spec;
  };
  std::vector<Case> cases = {
      {"mlp", models::mlp({8, 16, 4}), randn({3, 8}, 0), randn({5, 8}, 1), {{0, Dim("batch")}}},
      {"resnet18",
       models::resnet18(),
       randn({2, 3, 32, 32}, 2),
       randn({3, 3, 32, 32}, 3),
       {{0, Dim("batch")}}},
      {"bert",
       models::bert_encoder(bert_config),
       randn({2, 4, 768}, 4),
       randn({3, 9, 768}, 5),
       {{0, Dim("batch")}, {1, Dim("seq")}}},
  };
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    c.module->eval();
    ExportOptions options;
    options.dynamic_shapes = {c.spec};
    const ExportedProgram p = export_program(
        *c.module, [&](const Tensor& x) { return c.module->forward(x); }, {c.example}, options);
    const ExportedProgram core = p.run_decompositions();
    EXPECT_EQ(non_core_ops(core), std::vector<std::string>{});
    for (const Tensor& x : {c.example, c.other}) {
      EXPECT_TRUE(allclose(core.run({x}).at(0), c.module->forward(x), 1e-4, 1e-5));
    }
  }
}

}  // namespace
}  // namespace xport
