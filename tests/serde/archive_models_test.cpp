// Every reference model at full size, exported statically and with dynamic dims, survives the
// archive round trip: it prints the same, runs to bit-identical results on inputs inside its
// contract, and saving it again writes the same bytes. The runtime runs each saved file to the
// same bits, with its intermediates planned within 1.1x of the lower bound.
#include <gtest/gtest.h>

#include <iostream>

#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

Tensor ids(int64_t batch, int64_t seq, uint64_t seed) {
  std::vector<int64_t> v(static_cast<size_t>(batch * seq));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>((i * 7919 + seed * 31) % 50257);
  return from_vector(v, {batch, seq});
}

// The same program again (ExportedProgram is move-only), through the archive.
ExportedProgram load_copy(const ExportedProgram& p) {
  const test_support::TempFile file("copy");
  save(p, file.path());
  return load(file.path());
}

void check(nn::Module& model, const std::vector<Value>& example, const ExportOptions& options,
           const std::vector<std::vector<Value>>& inputs, const std::string& name) {
  model.eval();
  const ExportedProgram p = export_program(
      model, [&](const Tensor& x) { return model.forward(x); }, example, options);
  for (const std::string& problem : test_support::round_trip_problems(p, inputs, name)) {
    ADD_FAILURE() << problem;
  }
  const runtime::Program program = runtime::Program::from_exported(load_copy(p));
  for (const std::vector<Value>& in : inputs) {
    const runtime::PlanStats stats = program.plan_stats(in);
    ASSERT_TRUE(stats.planned) << name << ": " << stats.unplanned_reason;
    EXPECT_LE(static_cast<double>(stats.arena_bytes),
              1.1 * static_cast<double>(stats.lower_bound_bytes))
        << name << ": " << stats.str();
    std::cout << name << ": " << stats.str() << "\n";
  }
}

ExportOptions dims(DimSpec spec) {
  ExportOptions options;
  options.dynamic_shapes = {std::move(spec)};
  return options;
}

TEST(ArchiveModels, Mlp) {
  auto model = models::mlp({1024, 4096, 4096, 1024});
  const Tensor x = randn({4, 1024}, 0);
  check(*model, {x}, {}, {{x}}, "mlp-static");
  check(*model, {x}, dims({{0, Dim("batch", 2, 512)}}), {{x}, {randn({33, 1024}, 1)}},
        "mlp-dynamic");
}

TEST(ArchiveModels, Resnet50) {
  auto model = models::resnet50();
  const Tensor x = randn({1, 3, 64, 64}, 2);
  check(*model, {x}, {}, {{x}}, "resnet50-static");
  check(*model, {randn({2, 3, 64, 64}, 3)}, dims({{0, Dim("batch", 2, 32)}}),
        {{randn({2, 3, 64, 64}, 4)}, {randn({3, 3, 64, 64}, 5)}}, "resnet50-dynamic");
}

TEST(ArchiveModels, BertEncoder) {
  auto model = models::bert_encoder();
  const Tensor x = randn({1, 8, 768}, 6);
  check(*model, {x}, {}, {{x}}, "bert-static");
  check(*model, {randn({2, 16, 768}, 7)}, dims({{0, Dim("batch", 2, 64)}, {1, Dim("seq", 2, 512)}}),
        {{randn({2, 5, 768}, 8)}, {randn({3, 12, 768}, 9)}}, "bert-dynamic");
}

TEST(ArchiveModels, Gpt2) {
  auto model = models::gpt2();
  const Tensor x = ids(1, 8, 10);
  check(*model, {x}, {}, {{x}}, "gpt2-static");
  check(*model, {ids(1, 9, 11)}, dims({{1, Dim("seq", 2, 1024)}}),
        {{ids(1, 3, 12)}, {ids(1, 17, 13)}}, "gpt2-dynamic");
}

}  // namespace
}  // namespace xport
