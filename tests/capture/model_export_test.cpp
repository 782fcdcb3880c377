// The reference models export statically and with dynamic dims, and the exported programs agree
// with eager execution on shapes other than the example's.
#include <gtest/gtest.h>

#include "xport/capture/export.h"
#include "xport/nn/models.h"
#include "xport/xport.h"

namespace xport {
namespace {

bool same(const Tensor& a, const Tensor& b) { return allclose(a, b, 1e-4, 1e-5); }

Tensor ids(int64_t batch, int64_t seq, int64_t vocab, uint64_t seed) {
  std::vector<int64_t> v(static_cast<size_t>(batch * seq));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>((i * 7919 + seed * 31) % vocab);
  return from_vector(v, {batch, seq});
}

TEST(ModelExport, MlpWithDynamicBatch) {
  auto model = models::mlp({16, 32, 8});
  model->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 512)}}};
  const ExportedProgram p = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {randn({4, 16}, 0)}, options);
  // Nothing may be specialised without a guard: sweep many sizes against eager.
  for (int64_t n = 2; n <= 64; ++n) {
    const Tensor x = randn({n, 16}, static_cast<uint64_t>(n));
    EXPECT_TRUE(same(p.run({x}).at(0), model->forward(x))) << "batch " << n;
  }
  const Tensor x = randn({512, 16}, 1);
  EXPECT_TRUE(same(p.run({x}).at(0), model->forward(x)));
}

TEST(ModelExport, Resnet18WithDynamicBatchAndImageSize) {
  auto model = models::resnet18();
  model->eval();
  const Dim batch("batch", 2, 16), size("size", 32, 256);
  ExportOptions options;
  options.dynamic_shapes = {{{0, batch}, {2, size}, {3, size}}};
  const ExportedProgram p = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {randn({2, 3, 64, 64}, 0)},
      options);
  for (auto [n, hw] :
       std::vector<std::pair<int64_t, int64_t>>{{2, 32}, {3, 40}, {2, 57}, {4, 64}, {2, 96}}) {
    const Tensor x = randn({n, 3, hw, hw}, static_cast<uint64_t>(hw));
    EXPECT_TRUE(same(p.run({x}).at(0), model->forward(x))) << n << "x" << hw;
  }
}

TEST(ModelExport, BertEncoderWithDynamicBatchAndSequence) {
  models::BertConfig config;
  config.num_layers = 2;
  auto model = models::bert_encoder(config);
  model->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 64)}, {1, Dim("seq", 2, 512)}}};
  const ExportedProgram p = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {randn({2, 16, 768}, 0)},
      options);
  for (auto [n, t] :
       std::vector<std::pair<int64_t, int64_t>>{{2, 2}, {3, 7}, {2, 33}, {5, 16}, {2, 100}}) {
    const Tensor x = randn({n, t, 768}, static_cast<uint64_t>(t));
    EXPECT_TRUE(same(p.run({x}).at(0), model->forward(x))) << n << "x" << t;
  }
}

TEST(ModelExport, Gpt2WithDynamicSequenceUpToItsPositions) {
  models::Gpt2Config config;
  config.n_layer = 2;
  auto model = models::gpt2(config);
  model->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 8)}, {1, Dim("seq", 2, 1024)}}};
  const ExportedProgram p = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {ids(2, 9, config.vocab_size, 0)},
      options);
  for (auto [n, t] :
       std::vector<std::pair<int64_t, int64_t>>{{2, 2}, {3, 5}, {2, 17}, {4, 31}, {2, 64}}) {
    const Tensor x = ids(n, t, config.vocab_size, static_cast<uint64_t>(t));
    EXPECT_TRUE(same(p.run({x}).at(0), model->forward(x))) << n << "x" << t;
  }
  // A sequence longer than the position table is outside the contract.
  EXPECT_THROW(p.run({ids(2, 1025, config.vocab_size, 0)}), Error);
}

TEST(ModelExport, Gpt2BeyondItsPositionsIsAConstraintViolation) {
  models::Gpt2Config config;
  config.n_layer = 1;
  auto model = models::gpt2(config);
  model->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{1, Dim("seq")}}};
  try {
    export_program(
        *model, [&](const Tensor& x) { return model->forward(x); },
        {ids(1, 9, config.vocab_size, 0)}, options);
    FAIL() << "expected a ConstraintViolation";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ConstraintViolation) << e.what();
    EXPECT_NE(std::string(e.what()).find("Dim seq(\"seq\", 2, 1024)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace xport

namespace xport {
namespace {

// Every reference model at full size exports statically and matches eager on its example.
TEST(ModelExport, EveryReferenceModelExportsStatically) {
  struct Model {
    const char* name;
    std::shared_ptr<nn::Module> module;
    Tensor input;
  };
  std::vector<Model> all = {
      {"mlp", models::mlp({1024, 4096, 4096, 1024}), randn({4, 1024}, 0)},
      {"resnet18", models::resnet18(), randn({1, 3, 64, 64}, 1)},
      {"resnet50", models::resnet50(), randn({1, 3, 64, 64}, 2)},
      {"bert", models::bert_encoder(), randn({1, 8, 768}, 3)},
      {"gpt2", models::gpt2(), ids(1, 8, 50257, 4)},
  };
  for (Model& m : all) {
    SCOPED_TRACE(m.name);
    m.module->eval();
    const ExportedProgram p =
        export_program(*m.module, [&](const Tensor& x) { return m.module->forward(x); }, {m.input});
    EXPECT_TRUE(same(p.run({m.input}).at(0), m.module->forward(m.input)));
    EXPECT_TRUE(p.range_constraints().empty());
  }
}

TEST(ModelExport, Resnet50WithDynamicBatch) {
  auto model = models::resnet50();
  model->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}};
  const ExportedProgram p = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {randn({2, 3, 64, 64}, 0)},
      options);
  for (int64_t n : {2, 3, 4, 5, 7}) {
    const Tensor x = randn({n, 3, 64, 64}, static_cast<uint64_t>(n));
    EXPECT_TRUE(same(p.run({x}).at(0), model->forward(x))) << "batch " << n;
  }
}

}  // namespace
}  // namespace xport
