// Custom ops defined through xport::Library: eager, export (symbolic meta), print, verify,
// archive round trip, ExportedProgram::run and the runtime; mutating ops captured through their
// functional form; and the errors a user meets on the way.
#include "xport/ops/library.h"

#include <gtest/gtest.h>

#include <mutex>

#include "expect_error.h"
#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

using V = std::vector<Value>;

// Registered once per process (each ctest entry is its own process; the tests share these).
void register_test_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    Library("testlib")
        .define("scale(Tensor x, float s=2.0) -> Tensor")
        .impl("scale", [](const V& a) -> Value { return a[0].to_tensor() * a[1].to_double(); })
        .impl_meta("scale", [](const V& a) -> Value { return empty_like(a[0].to_tensor()); })
        // Rows of a on top of rows of b: the meta function's size is symbolic under export.
        .define("stack_rows(Tensor a, Tensor b) -> Tensor")
        .impl("stack_rows",
              [](const V& a) -> Value { return cat({a[0].to_tensor(), a[1].to_tensor()}, 0); })
        .impl_meta("stack_rows",
                   [](const V& a) -> Value {
                     const Tensor& x = a[0].to_tensor();
                     const Tensor& y = a[1].to_tensor();
                     return empty({x.size(0) + y.size(0), x.size(1)}, x.dtype());
                   })
        // Two results; the meta function uses an ATen op for the shapes.
        .define("halves(Tensor x) -> (Tensor, Tensor)")
        .impl("halves",
              [](const V& a) -> Value {
                const Tensor& x = a[0].to_tensor();
                const SymInt h = x.size(-1) / 2;
                return std::vector<Tensor>{x.slice(-1, 0, h).contiguous(),
                                           x.slice(-1, h, x.size(-1)).contiguous()};
              })
        .impl_meta("halves",
                   [](const V& a) -> Value {
                     const Tensor& x = a[0].to_tensor();
                     const SymInt h = x.size(-1) / 2;
                     return std::vector<Tensor>{empty_like(x.slice(-1, 0, h)),
                                                empty_like(x.slice(-1, h, x.size(-1)))};
                   })
        // Updates its first argument: export records testlib::accumulate instead.
        .define("accumulate_(Tensor(a!) acc, Tensor x) -> ()")
        .impl("accumulate_",
              [](const V& a) -> Value {
                Tensor acc = a[0].to_tensor();
                acc.add_(a[1].to_tensor());
                return {};
              })
        .impl_meta("accumulate_", [](const V&) -> Value { return {}; })
        // No meta function: export traces the decomposition.
        .define("softsign(Tensor x) -> Tensor")
        .impl("softsign",
              [](const V& a) -> Value {
                const Tensor& x = a[0].to_tensor();
                return x / (x.abs() + 1.0);
              })
        .impl_decomposition("softsign",
                            [](const V& a) -> Value {
                              const Tensor& x = a[0].to_tensor();
                              return x / (x.abs() + 1.0);
                            })
        // A kernel only: eager works, export cannot.
        .define("opaque(Tensor x) -> Tensor")
        .impl("opaque", [](const V& a) -> Value { return a[0].to_tensor() + 1.0; })
        // A kernel that disagrees with its meta function.
        .define("liar(Tensor x) -> Tensor")
        .impl("liar", [](const V& a) -> Value { return a[0].to_tensor().sum(0); })
        .impl_meta("liar", [](const V& a) -> Value { return empty_like(a[0].to_tensor()); });
  });
}

class CustomOp : public ::testing::Test {
 protected:
  void SetUp() override { register_test_ops(); }
};

TEST_F(CustomOp, RunsEagerlyByNameWithDefaultsFilledIn) {
  const Tensor x = randn({3, 4}, 0);
  EXPECT_TRUE(allclose(call_op("testlib::scale", {x, 3.0}).to_tensor(), x * 3.0));
  EXPECT_TRUE(allclose(call_op("testlib::scale", {x}).to_tensor(), x * 2.0));
  const Value halves = call_op("testlib::halves", {x});
  ASSERT_TRUE(halves.is_list());
  EXPECT_TRUE(allclose(halves.to_tensor_list()[1], x.slice(1, 2, 4)));
  EXPECT_TRUE(allclose(call_op("testlib::opaque", {x}).to_tensor(), x + 1.0));
  EXPECT_NE(find_op("testlib::scale").parsed.str().find("float s=2.0"), std::string::npos);
}

TEST_F(CustomOp, ExportsWithSymbolicSizesPrintsAndRunsEverywhere) {
  const Dim batch("batch", 1, 64);
  const Dim rows("rows", 1, 64);
  ExportOptions options;
  options.dynamic_shapes = {{{0, batch}}, {{0, rows}}};
  auto fn = [](const Tensor& a, const Tensor& b) {
    const Tensor stacked = call_op("testlib::stack_rows", {a, b}).to_tensor();
    const Value halves = call_op("testlib::halves", {stacked});
    return relu(call_op("testlib::scale", {halves.to_tensor_list()[0], 0.5}).to_tensor()) +
           halves.to_tensor_list()[1];
  };
  const ExportedProgram p = export_program(fn, {randn({3, 8}, 1), randn({5, 8}, 2)}, options);
  const std::string text = p.to_string();
  EXPECT_NE(text.find("testlib::stack_rows.default("), std::string::npos) << text;
  EXPECT_NE(text.find("testlib::scale.default("), std::string::npos) << text;
  EXPECT_NE(text.find("f32[s0 + s1, 4]"), std::string::npos) << text;
  p.graph().verify();

  const Tensor a = randn({7, 8}, 3), b = randn({1, 8}, 4);
  const Tensor expected = fn(a, b);
  EXPECT_TRUE(allclose(p.run({a, b})[0], expected));
  test_support::TempFile file("custom-op");
  save(p, file.path());
  const ExportedProgram loaded = load(file.path());
  EXPECT_EQ(loaded.to_string(), text);
  EXPECT_TRUE(allclose(loaded.run({a, b})[0], expected));
  const runtime::Program rt = runtime::Program::load(file.path());
  EXPECT_TRUE(allclose(rt.run({a, b})[0], expected));
  EXPECT_TRUE(allclose(rt.run({b, a})[0], fn(b, a)));
}

class Accumulator : public nn::Module {
 public:
  Accumulator() : nn::Module("Accumulator") { total = register_buffer("total", zeros({4})); }
  Tensor forward(const Tensor& x) {
    call_op("testlib::accumulate_", {total, x});
    return total * 1.0;
  }
  Tensor total;
};

TEST_F(CustomOp, MutatingOpIsCapturedThroughItsFunctionalForm) {
  const OpDef* functional = functional_variant(find_op("testlib::accumulate_"));
  ASSERT_NE(functional, nullptr);
  EXPECT_EQ(functional->parsed.str(), "testlib::accumulate(Tensor acc, Tensor x) -> Tensor");

  Accumulator eager, exported;
  const ExportedProgram p = export_program(
      exported, [&](const Tensor& x) { return exported.forward(x); }, {ones({4})});
  const std::string text = p.to_string();
  EXPECT_NE(text.find("testlib::accumulate.default("), std::string::npos) << text;
  EXPECT_EQ(text.find("accumulate_"), std::string::npos) << text;
  ASSERT_EQ(p.signature().outputs[0].kind, OutputSpec::Kind::BufferMutation);

  test_support::TempFile file("custom-mutation");
  save(p, file.path());  // before the runs below update the program's buffer
  const Tensor x1 = randn({4}, 5), x2 = randn({4}, 6);
  eager.forward(x1);
  const Tensor expected = eager.forward(x2);
  p.run({x1});
  EXPECT_TRUE(allclose(p.run({x2})[0], expected));
  EXPECT_TRUE(allclose(p.state().at("total"), eager.total));

  const runtime::Program rt = runtime::Program::load(file.path());
  rt.run({x1});
  EXPECT_TRUE(allclose(rt.run({x2})[0], expected));
}

TEST_F(CustomOp, WithoutMetaFunctionIsTracedThroughItsDecomposition) {
  const ExportedProgram p = export_program(
      [](const Tensor& x) { return call_op("testlib::softsign", {x}).to_tensor(); },
      {randn({2, 3}, 7)});
  EXPECT_EQ(p.to_string().find("testlib::"), std::string::npos) << p.to_string();
  const Tensor x = randn({2, 3}, 8);
  EXPECT_TRUE(allclose(p.run({x})[0], x / (x.abs() + 1.0)));
}

TEST_F(CustomOp, WithNeitherMetaNorDecompositionExportSaysWhatToAdd) {
  test_support::expect_error(
      [] {
        export_program([](const Tensor& x) { return call_op("testlib::opaque", {x}).to_tensor(); },
                       {randn({2}, 0)});
      },
      ErrorKind::UnsupportedOp, {"testlib::opaque", "impl_meta(\"opaque\""});
}

TEST_F(CustomOp, KernelThatDisagreesWithItsMetaFunctionIsNamed) {
  test_support::expect_error([] { call_op("testlib::liar", {randn({3, 2}, 0)}); },
                             ErrorKind::InvalidInput,
                             {"testlib::liar", "f32[2]", "f32[3, 2]", "make the two agree"});
}

TEST_F(CustomOp, LibraryRefusesWhatCannotWork) {
  test_support::expect_error([] { Library("aten"); }, ErrorKind::InvalidSpec,
                             {"belongs to xport"});
  test_support::expect_error([] { Library("my lib"); }, ErrorKind::InvalidSpec, {"identifier"});
  test_support::expect_error(
      [] { Library("testlib").impl("nothing", [](const V&) -> Value { return {}; }); },
      ErrorKind::InvalidSpec, {"testlib::nothing", "define(\"nothing(...)"});
  test_support::expect_error([] { Library("testlib").define("scale(Tensor x) -> Tensor"); },
                             ErrorKind::InvalidSpec, {"already registered"});
  test_support::expect_error([] { Library("testlib").define("otherlib::f(Tensor x) -> Tensor"); },
                             ErrorKind::InvalidSpec, {"another namespace"});
  test_support::expect_error(
      [] { Library("testlib").impl("aten::relu", [](const V&) -> Value { return {}; }); },
      ErrorKind::InvalidSpec, {"another namespace"});
}

}  // namespace
}  // namespace xport
