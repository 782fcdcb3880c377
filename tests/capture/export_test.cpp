#include "xport/capture/export.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "expect_error.h"
#include "xport/nn/models.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::expect_error;

bool same(const Tensor& a, const Tensor& b) { return allclose(a, b, 1e-5, 1e-6); }

TEST(Export, StaticFunctionMatchesEagerAndRefusesOtherShapes) {
  auto fn = [](const Tensor& x) { return relu(x) * 2.0 + 1.0; };
  const Tensor x = randn({2, 3}, 0);
  const ExportedProgram p = export_program(fn, {x});
  EXPECT_TRUE(same(p.run({x}).at(0), fn(x)));
  const Tensor other = randn({2, 3}, 1);
  EXPECT_TRUE(same(p.run({other}).at(0), fn(other)));
  EXPECT_NE(p.to_string().find("aten::relu.default(%x)"), std::string::npos) << p.to_string();
  expect_error(
      [&] {
        p.run({randn({3, 3}, 0)});
      },
      ErrorKind::InvalidInput, {"x.size(0) = 3", "static dim"});
  expect_error(
      [&] {
        p.run({randn({2, 3}, 0, DType::Float64)});
      },
      ErrorKind::InvalidInput, {"input x", "dtype", "convert it with .to(DType::Float32)"});
  expect_error([&] { p.run({randn({6}, 0)}); }, ErrorKind::InvalidInput, {"expected 2 dims"});
  expect_error([&] { p.run({}); }, ErrorKind::InvalidInput, {"expected 1 inputs"});
}

TEST(Export, DynamicBatchRunsOnOtherBatchSizesWithinTheRange) {
  nn::Linear fc(4, 3);
  const Dim batch("batch", 2, 64);
  ExportOptions options;
  options.dynamic_shapes = {{{0, batch}}};
  const ExportedProgram p = export_program(
      fc, [&](const Tensor& x) { return fc.forward(x); }, {randn({8, 4}, 0)}, options);
  for (int64_t n : {2, 3, 17, 64}) {
    const Tensor x = randn({n, 4}, static_cast<uint64_t>(n));
    EXPECT_TRUE(same(p.run({x}).at(0), fc.forward(x))) << "batch " << n;
  }
  EXPECT_EQ(p.range_constraints().at("s0"), (sym::Range{2, 64}));
  const std::string text = p.to_string();
  EXPECT_NE(text.find("%p_weight: parameter weight"), std::string::npos) << text;
  EXPECT_NE(text.find("s0: batch in [2, 64]"), std::string::npos) << text;
  expect_error(
      [&] {
        p.run({randn({65, 4}, 0)});
      },
      ErrorKind::InvalidInput, {"x.size(0) = 65", "[2, 64]", "batch"});
  expect_error(
      [&] {
        p.run({randn({1, 4}, 0)});
      },
      ErrorKind::InvalidInput, {"x.size(0) = 1", "export with Dim(\"batch\", 1, ...)"});
  expect_error([&] { p.run({randn({8, 5}, 0)}); }, ErrorKind::InvalidInput, {"x.size(1) = 5"});
}

TEST(Export, ABranchOnTheBatchSizeNeedsANarrowerRange) {
  auto fn = [](const Tensor& x) {
    if (x.size(0) <= 16) return x * 2.0;  // a guard on a dynamic dim
    return x;
  };
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 1024)}}};
  const std::string message = expect_error(
      [&] {
        export_program(fn, {randn({8, 3}, 0)}, options);
      },
      ErrorKind::ConstraintViolation,
      {"x.size(0) <= 16, i.e. batch <= 16", "export_test.cpp:", "Dim batch(\"batch\", 2, 16);",
       "options.dynamic_shapes = {", "{{0, batch}},  // x",
       "see ExportDB case 'dynamic_shape_if_guard'"});
  // The suggested spec, pasted back, exports and runs on new shapes.
  const Dim batch("batch", 2, 16);
  options.dynamic_shapes = {{{0, batch}}};
  const ExportedProgram p = export_program(fn, {randn({8, 3}, 0)}, options);
  const Tensor x = randn({5, 3}, 1);
  EXPECT_TRUE(same(p.run({x}).at(0), fn(x)));
  expect_error([&] { p.run({randn({17, 3}, 0)}); }, ErrorKind::InvalidInput, {"x.size(0) = 17"});
}

TEST(Export, MatmulForcesTwoDeclaredDimsEqual) {
  auto fn = [](const Tensor& x, const Tensor& y) { return x.matmul(y); };
  ExportOptions options;
  options.input_names = {"x", "y"};
  options.dynamic_shapes = {{{0, Dim("m")}, {1, Dim("k1")}}, {{0, Dim("k2")}}};
  expect_error(
      [&] {
        export_program(fn, {randn({4, 6}, 0), randn({6, 3}, 1)}, options);
      },
      ErrorKind::ConstraintViolation,
      {"x.size(1) == y.size(0), i.e. k1 == k2", "export_test.cpp:", "{{0, m}, {1, k"});
  // Two Dims of one name are still two sizes: the error says so.
  options.dynamic_shapes = {{{0, Dim("m")}, {1, Dim("k")}}, {{0, Dim("k")}}};
  expect_error(
      [&] {
        export_program(fn, {randn({4, 6}, 0), randn({6, 3}, 1)}, options);
      },
      ErrorKind::ConstraintViolation,
      {"i.e. k == k", "Two Dim objects are named \"k\": each is a size of its own",
       "{{0, m}, {1, k}},  // x", "{{0, k}},  // y"});
  // One Dim for both: exports, and a mismatch is refused at run time naming both dims.
  const Dim k("k");
  options.dynamic_shapes = {{{0, Dim("m")}, {1, k}}, {{0, k}}};
  const ExportedProgram p = export_program(fn, {randn({4, 6}, 0), randn({6, 3}, 1)}, options);
  const Tensor a = randn({5, 9}, 2), b = randn({9, 3}, 3);
  EXPECT_TRUE(same(p.run({a, b}).at(0), fn(a, b)));
  expect_error(
      [&] {
        p.run({randn({5, 9}, 2), randn({8, 3}, 3)});
      },
      ErrorKind::InvalidInput, {"y.size(0) = 8", "y.size(0) == k = 9", "x.size(1) = 9"});
}

TEST(Export, UsingADynamicSizeAsACppIntegerSpecialisesIt) {
  auto fn = [](const Tensor& x) {
    const int64_t n = static_cast<int64_t>(x.size(0));  // specialises
    return x.reshape({n * 3});
  };
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch")}}};
  expect_error(
      [&] {
        export_program(fn, {randn({8, 3}, 0)}, options);
      },
      ErrorKind::ConstraintViolation,
      {"x.size(0) (Dim batch) was specialised to 8", "export_test.cpp:", "{},  // x"});
}

TEST(Export, DerivedDimsLinkTwoInputs) {
  auto fn = [](const Tensor& x, const Tensor& y) {
    return x.reshape({2, y.size(0)}) + y;  // x has 2 * d elements, y has d
  };
  const Dim d("d");
  ExportOptions options;
  options.input_names = {"x", "y"};
  options.dynamic_shapes = {{{0, 2 * d}}, {{0, d}}};
  const ExportedProgram p = export_program(fn, {randn({8}, 0), randn({4}, 1)}, options);
  const Tensor x = randn({14}, 2), y = randn({7}, 3);
  EXPECT_TRUE(same(p.run({x, y}).at(0), fn(x, y)));
  expect_error(
      [&] {
        p.run({randn({14}, 2), randn({6}, 3)});
      },
      ErrorKind::InvalidInput, {"x.size(0) = 14", "2*d"});
}

TEST(Export, SpecErrorsAreInvalidSpec) {
  auto fn = [](const Tensor& x) { return x + 1.0; };
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch")}}};
  expect_error(
      [&] {
        export_program(fn, {randn({1, 3}, 0)}, options);
      },
      ErrorKind::InvalidSpec, {"x.size(0) = 1", "Declare Dim(\"batch\", 1) to include size 1"});
  options.dynamic_shapes = {{{2, Dim("batch")}}};
  expect_error(
      [&] {
        export_program(fn, {randn({4, 3}, 0)}, options);
      },
      ErrorKind::InvalidSpec, {"names dim 2"});
  options.dynamic_shapes = {{{0, Dim("batch", 2, 4)}}};
  expect_error(
      [&] {
        export_program(fn, {randn({8, 3}, 0)}, options);
      },
      ErrorKind::InvalidSpec, {"outside"});
  const Dim shared("n");
  options.dynamic_shapes = {{{0, shared}, {1, shared}}};
  expect_error(
      [&] {
        export_program(fn, {randn({4, 3}, 0)}, options);
      },
      ErrorKind::InvalidSpec, {"must agree"});
}

TEST(Export, ClosuresOverRealTensorsBecomeLiftedConstants) {
  const Tensor scale = randn({3}, 5);
  auto fn = [&](const Tensor& x) { return x * scale; };
  const ExportedProgram p = export_program(fn, {randn({2, 3}, 0)});
  EXPECT_NE(p.to_string().find("%c_lifted_tensor_0: constant"), std::string::npos) << p.to_string();
  const Tensor x = randn({2, 3}, 1);
  EXPECT_TRUE(same(p.run({x}).at(0), fn(x)));
}

TEST(Export, ReadingTensorDataWhileTracingIsDataDependent) {
  auto fn = [](const Tensor& x) {
    return x * x.sum().item<double>();  // reads data
  };
  const int line = __LINE__ - 2;
  expect_error(
      [&] {
        export_program(fn, {randn({2, 3}, 0)});
      },
      ErrorKind::DataDependent,
      {"item() at export_test.cpp:" + std::to_string(line), "Keep the value a tensor",
       "see ExportDB case 'data_dependent_item'"});
}

TEST(Export, NodesRecordTheUserSourceLineAndModulePath) {
  auto model = models::mlp({4, 8, 2});
  model->eval();
  const ExportedProgram p = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {randn({3, 4}, 0)});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("export_test.cpp:"), std::string::npos) << text;
  EXPECT_NE(text.find("layers.0"), std::string::npos) << text;
  EXPECT_NE(text.find("%p_layers_0_weight: parameter layers.0.weight"), std::string::npos) << text;
}

TEST(Export, IntInputsAreSpecialisedAndCheckedAtRunTime) {
  auto fn = [](const Tensor& x, int64_t k) { return x * static_cast<double>(k); };
  const ExportedProgram p = export_program(fn, {randn({2}, 0), int64_t{3}});
  const Tensor x = randn({2}, 1);
  EXPECT_TRUE(same(p.run({x, int64_t{3}}).at(0), fn(x, 3)));
  expect_error([&] { p.run({x, int64_t{4}}); }, ErrorKind::InvalidInput, {"specialised to 3"});
}

TEST(Export, ListInputsAndAnInputReturnedUnchanged) {
  auto fn = [](const std::vector<Tensor>& xs, const Tensor& y) {
    return std::make_tuple(cat(xs, 0), y);
  };
  const std::vector<Tensor> xs = {randn({2, 3}, 0), randn({1, 3}, 1)};
  const ExportedProgram p = export_program(fn, {xs, randn({4}, 2)});
  const std::vector<Tensor> other = {randn({2, 3}, 3), randn({1, 3}, 4)};
  const Tensor y = randn({4}, 5);
  const auto out = p.run({other, y});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(same(out[0], cat(other, 0)));
  EXPECT_TRUE(same(out[1], y));
  expect_error(
      [&] {
        p.run({std::vector<Tensor>{other[0]}, y});
      },
      ErrorKind::InvalidInput, {"list of 2 tensors"});
}

TEST(Export, InPlaceUpdatesOfIntermediatesBecomeFunctional) {
  auto fn = [](const Tensor& x) {
    Tensor y = x * 2.0;
    y.add_(1.0);
    y.mul_(x);
    return y;
  };
  const ExportedProgram p = export_program(fn, {randn({3}, 0)});
  EXPECT_EQ(p.to_string().find("add_"), std::string::npos) << p.to_string();
  const Tensor x = randn({3}, 1);
  EXPECT_TRUE(same(p.run({x}).at(0), fn(x)));
}

}  // namespace
}  // namespace xport

namespace xport {
namespace {

TEST(Export, TwoThreadsExportConcurrently) {
  auto fn = [](const Tensor& x, const Tensor& y) { return softmax(x.matmul(y), -1); };
  std::vector<std::string> failures(2);
  auto work = [&](int t) {
    try {
      for (int i = 0; i < 20; ++i) {
        const Dim k("k");
        ExportOptions options;
        options.dynamic_shapes = {{{0, Dim("m")}, {1, k}}, {{0, k}}};
        const ExportedProgram p = export_program(fn, {randn({3, 4}, 0), randn({4, 5}, 1)}, options);
        const Tensor a = randn({2 + t + i % 3, 7}, 2), b = randn({7, 5}, 3);
        if (!allclose(p.run({a, b}).at(0), fn(a, b), 1e-5, 1e-6)) failures[t] = "mismatch";
      }
    } catch (const std::exception& e) {
      failures[t] = e.what();
    }
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

}  // namespace
}  // namespace xport

namespace xport {
namespace {

TEST(Export, XportLogsPrintsSymbolsAndGuardsWithTheirLines) {
  auto fn = [](const Tensor& x) {
    if (x.size(0) <= 16) return x + 1.0;  // the guard
    return x;
  };
  const int line = __LINE__ - 3;
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 16)}}};
  export_program(fn, {randn({4, 3}, 0)}, options);  // decided by the range: no guard
  options.dynamic_shapes = {{{0, Dim("batch")}}};
  setenv("XPORT_LOGS", "dynamic,guards", 1);
  testing::internal::CaptureStderr();
  EXPECT_THROW(export_program(fn, {randn({4, 3}, 0)}, options), Error);
  const std::string log = testing::internal::GetCapturedStderr();
  unsetenv("XPORT_LOGS");
  EXPECT_NE(log.find("[xport dynamic] s0 = x.size(0) (batch) in [2, oo], example 4"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("[xport guards] x.size(0) <= 16  (export_test.cpp:" + std::to_string(line)),
            std::string::npos)
      << log;
}

}  // namespace
}  // namespace xport
