// The C++ declarations derived from the registry (tools/apigen): xport/aten.h's functions and
// xport/kernels.h's kernel declarations, whose addresses kernel_references.cpp (linked here)
// takes as the declared types.
#include "xport/aten.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "xport/xport.h"

namespace xport::generated {
extern const std::pair<const char*, void (*)()> kKernelAddresses[];
extern const int kKernelCount;
}  // namespace xport::generated

namespace xport {
namespace {

TEST(AtenApi, CallsEachOverloadWithTheSchemasDefaults) {
  const Tensor x = randn({3, 4}, 1);
  const Tensor y = randn({3, 4}, 2);
  // elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1)
  EXPECT_TRUE(allclose(aten::elu(x), call_op("aten::elu", {x}).to_tensor()));
  EXPECT_TRUE(allclose(aten::elu(x, 0.5), call_op("aten::elu", {x, 0.5}).to_tensor()));
  // add.Tensor and add.Scalar, told apart by the second argument's type; alpha by keyword.
  EXPECT_TRUE(allclose(aten::add(x, y), x + y));
  EXPECT_TRUE(allclose(aten::add(x, y, 2), x + y * 2.0));
  EXPECT_TRUE(allclose(aten::add(x, 1.5), x + 1.5));
  // A list argument with a C++ default, and a keyword-only ScalarType? left as None.
  EXPECT_TRUE(allclose(aten::sum(x, std::vector<int64_t>{1}), x.sum({1})));
  EXPECT_TRUE(allclose(aten::sum(x, std::vector<int64_t>{1}, true), x.sum({1}, true)));
  // arange.start and arange.start_step both fit two numbers: start_step needs its step.
  EXPECT_TRUE(allclose(aten::arange(0, 4), arange(4)));
  EXPECT_TRUE(allclose(aten::arange(0, 8, 2), arange(0, 8, 2)));
}

TEST(AtenApi, ReturnsTuplesListsAndUpdatesInPlace) {
  const Tensor x = randn({2, 6}, 3);
  auto [y, mean, rstd] = aten::native_layer_norm(x, {6}, std::nullopt, std::nullopt, 1e-5);
  EXPECT_EQ(y.sizes(), x.sizes());
  EXPECT_EQ(mean.sizes(), (std::vector<SymInt>{2, 1}));
  EXPECT_TRUE(allclose(y, call_op("aten::native_layer_norm", {x, std::vector<int64_t>{6}, Value(),
                                                               Value(), 1e-5})
                              .to_tensor_list()[0]));
  const std::vector<Tensor> parts = aten::split(x, 4, 1);  // split.Tensor(self, SymInt, int dim)
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].sizes(), (std::vector<SymInt>{2, 2}));
  Tensor z = x.clone();
  aten::mul_(z, 2.0);
  EXPECT_TRUE(allclose(z, x * 2.0));
  // atan2.out writes into `out`, which must have the result's shape (PyTorch would resize it).
  const Tensor out = zeros({2, 6}, DType::Float64);
  aten::atan2(x, z, out);
  EXPECT_TRUE(allclose(out, aten::atan2(x, z).to(DType::Float64)));
  EXPECT_THROW(aten::atan2(x, z, zeros({6})), Error);
}

TEST(AtenApi, IsRecordedUnderCaptureWithSymbolicSizes) {
  const TracedFn fn = [](const std::vector<Value>& in) {
    const Tensor& x = in[0].to_tensor();
    const Tensor h = aten::leaky_relu(x, 0.2);
    return std::vector<Tensor>{aten::reshape(h, {x.size(0) * 2, 2})};
  };
  const ExportedProgram p =
      export_program(fn, {randn({3, 4}, 4)}, {.dynamic_shapes = {{{0, Dim("batch")}}}});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("aten::leaky_relu.default(%x, 0.2)"), std::string::npos) << text;
  // The node's line is the caller's, not the generated header's.
  for (const auto& node : p.graph().nodes()) {
    if (node->kind() != ir::NodeKind::Call) continue;
    EXPECT_NE(node->meta().source.find("aten_api_test.cpp:"), std::string::npos)
        << node->name() << " at " << node->meta().source;
  }
  for (int64_t batch : {2, 5}) {
    const Tensor x = randn({batch, 4}, 5);
    const Tensor got = p.run({x}).at(0);
    EXPECT_EQ(got.sizes(), (std::vector<SymInt>{batch * 2, 2}));
    EXPECT_TRUE(allclose(got, call_op("aten::leaky_relu", {x, 0.2}).to_tensor().reshape(
                                  {batch * 2, 2})));
  }
}

// Every aten op has a function, or is listed with a reason of one of these kinds.
TEST(AtenApi, EveryAtenOpHasAFunctionOrAReason) {
  std::set<std::string> skipped;
  for (const auto& [name, why] : aten::kNotGenerated) {
    skipped.insert(name);
    const std::string reason = why;
    EXPECT_TRUE(reason.starts_with("a result is not a tensor") ||
                reason.starts_with("takes subgraphs") || reason.starts_with("argument '") ||
                reason.starts_with("its name is not a C++ identifier"))
        << name << ": " << reason;
  }
  EXPECT_TRUE(skipped.count("aten::item")) << "item returns a Scalar";
  EXPECT_FALSE(skipped.count("aten::elu"));
  int aten_ops = 0;
  for (const OpDef* op : all_ops()) aten_ops += op->parsed.ns == "aten";
  EXPECT_LT(skipped.size() * 10, static_cast<size_t>(aten_ops))
      << "more than a tenth of the aten ops have no C++ function";
}

// kernel_references.cpp took each declared kernel's address as its declared type (a mismatch
// would not have linked); here: one declaration per distinct kernel the registry holds.
TEST(KernelDeclarations, DeclareEveryTypedKernelOnce) {
  std::set<std::string> symbols;
  for (const OpDef* op : all_ops()) {
    if (op->kernel.symbol.name.empty() || op->user_defined) continue;
    std::string key = op->kernel.symbol.name + "(";
    for (const std::string& p : op->kernel.symbol.parameters) key += p + ",";
    symbols.insert(key);
  }
  ASSERT_EQ(generated::kKernelCount, static_cast<int>(symbols.size()));
  std::set<std::string> names;
  for (int i = 0; i < generated::kKernelCount; ++i) {
    EXPECT_NE(generated::kKernelAddresses[i].second, nullptr);
    names.insert(generated::kKernelAddresses[i].first);
  }
  EXPECT_TRUE(names.count("xport::kernels::cpu::relu_out"));
  EXPECT_GT(generated::kKernelCount, 150);
}

}  // namespace
}  // namespace xport
