#include <gtest/gtest.h>

#include <memory>

#include "ir/ir_test_util.h"
#include "xport/ir/ir.h"
#include "xport/ops/functions.h"
#include "xport/ops/linalg_functions.h"
#include "xport/ops/nn_functions.h"
#include "xport/ops/shape_functions.h"

namespace xport::ir {
namespace {

using testing::c;
using testing::expect_error;
using testing::f32;
using testing::s0;

void expect_same(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.int_sizes(), want.int_sizes());
  ASSERT_EQ(got.dtype(), want.dtype());
  EXPECT_TRUE(allclose(got, want, 0, 0)) << "got\n" << got << "\nwant\n" << want;
}

class InterpreterWithSize : public ::testing::TestWithParam<int64_t> {};

TEST_P(InterpreterWithSize, RunsALinearLayerLikeEagerCalls) {
  const int64_t n = GetParam();
  const Graph g = testing::linear_relu_graph();
  const Tensor x = randn({n, 3}, 1);
  const Tensor w = randn({10, 3}, 2);
  const Tensor b = randn({10}, 3);
  const std::vector<Tensor> out = interpret(g, {x, w, b}, {{s0(), n}});
  ASSERT_EQ(out.size(), 1u);
  expect_same(out[0], relu(addmm(b, x, w.t())));
}

TEST_P(InterpreterWithSize, EvaluatesSymbolicSizeArguments) {
  const int64_t n = GetParam();
  Graph g;
  const Node* x = g.add_placeholder("x", f32({s0(), c(3)}));
  const auto flat = sym::mul(s0(), c(3));
  const Node* reshape_node =
      g.add_call(find_op("aten::reshape"), {x->out(), std::vector<Argument>{flat}}, {f32({flat})});
  const Node* relu_node = g.add_call(find_op("aten::relu"), {reshape_node->out()}, {f32({flat})});
  g.set_output({relu_node->out()});
  g.verify();
  const Tensor input = randn({n, 3}, 4);
  const std::vector<Tensor> out = interpret(g, {input}, {{s0(), n}});
  ASSERT_EQ(out.size(), 1u);
  expect_same(out[0], relu(input.reshape({n * 3})));
}

INSTANTIATE_TEST_SUITE_P(Interpreter, InterpreterWithSize, ::testing::Values(2, 7));

TEST(Interpreter, PassesKeywordArgumentsAndFloats) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2), c(3)}));
  const Node* y = g.add_placeholder("y", f32({c(2), c(3)}));
  const Node* add_node =
      g.add_call(find_op("aten::add.Tensor"), {x->out(), y->out(), 0.5}, {f32({c(2), c(3)})});
  const Node* ln_node =
      g.add_call(find_op("aten::layer_norm"),
                 {add_node->out(), std::vector<Argument>{3}, Argument(), Argument(), 1e-5, true},
                 {f32({c(2), c(3)})});
  const Node* cat_node =
      g.add_call(find_op("aten::cat"), {std::vector<Argument>{ln_node->out(), x->out()}, 1},
                 {f32({c(2), c(6)})});
  g.set_output({cat_node->out()});
  const Tensor a = randn({2, 3}, 5);
  const Tensor b = randn({2, 3}, 6);
  const std::vector<Tensor> out = interpret(g, {a, b}, {});
  ASSERT_EQ(out.size(), 1u);
  expect_same(out[0], cat({layer_norm(add(a, b, 0.5), {3}), a}, 1));
}

TEST(Interpreter, ReturnsTheValuesOfAMultiOutputNode) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(5), c(3)}));
  const Node* split_node = g.add_call(find_op("aten::split.Tensor"), {x->out(), 2, 0},
                                      {f32({c(2), c(3)}), f32({c(2), c(3)}), f32({c(1), c(3)})});
  g.set_output({split_node->out(2), split_node->out(0)});
  const Tensor input = randn({5, 3}, 7);
  const std::vector<Tensor> out = interpret(g, {input}, {});
  const std::vector<Tensor> want = xport::split(input, 2);
  ASSERT_EQ(out.size(), 2u);
  expect_same(out[0], want[2]);
  expect_same(out[1], want[0]);
}

TEST(Interpreter, NamesAnUnboundSymbol) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2), c(3)}));
  const Node* reshape_node =
      g.add_call(find_op("aten::reshape"), {x->out(), std::vector<Argument>{sym::mul(s0(), c(3))}},
                 {f32({c(6)})});
  g.set_output({reshape_node->out()});
  expect_error(
      [&] {
        interpret(g, {randn({2, 3}, 1)}, {});
      },
      ErrorKind::InvalidInput,
      "interpret: node %reshape (aten::reshape): argument 1 (shape): 3*s0 needs the "
      "value of s0");
}

TEST(Interpreter, RejectsInputsThatDoNotMatchThePlaceholders) {
  const Graph g = testing::linear_relu_graph();
  const Tensor w = randn({10, 3}, 2);
  const Tensor b = randn({10}, 3);
  expect_error(
      [&] {
        interpret(g, {randn({4, 3}, 1), w}, {{s0(), 4}});
      },
      ErrorKind::InvalidInput, "interpret: the graph takes 3 inputs, got 2");
  expect_error(
      [&] {
        interpret(g, {randn({4, 3}, 1), w, b}, {{s0(), 5}});
      },
      ErrorKind::InvalidInput,
      "interpret: input 0 (%x) is f32[4, 3], the graph expects f32[s0, 3] = [5, 3]");
  expect_error(
      [&] {
        interpret(g, {randn({4, 3}, 1, DType::Float64), w, b}, {{s0(), 4}});
      },
      ErrorKind::InvalidInput, "input 0 (%x) is f64[4, 3]");
}

// Test ops that watch an intermediate's storage: `remember` returns a fresh copy and keeps a weak
// reference to it; `is_released` reports whether that copy is gone by the time it runs.
std::weak_ptr<Storage> g_remembered;
bool g_released = false;

const OpDef& remember_op() {
  static const OpDef& op = register_op({
      .schema = "xport_test::remember(Tensor self) -> Tensor",
      .cpu_alloc =
          [](const OpArgs& args) {
            Tensor copy = args.tensor("self").clone();
            g_remembered = copy.storage();
            return std::vector<Tensor>{copy};
          },
  });
  return op;
}

const OpDef& is_released_op() {
  static const OpDef& op = register_op({
      .schema = "xport_test::is_released(Tensor self) -> Tensor",
      .cpu_alloc =
          [](const OpArgs& args) {
            g_released = g_remembered.expired();
            return std::vector<Tensor>{args.tensor("self").clone()};
          },
  });
  return op;
}

TEST(Interpreter, ReleasesIntermediatesAfterTheirLastUse) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(4)}));
  const Node* copy_node = g.add_call(remember_op(), {x->out()}, {f32({c(4)})});
  const Node* neg_node = g.add_call(find_op("aten::neg"), {copy_node->out()}, {f32({c(4)})});
  const Node* check_node = g.add_call(is_released_op(), {neg_node->out()}, {f32({c(4)})});
  g.set_output({check_node->out()});
  g_released = false;
  const Tensor input = randn({4}, 8);
  const std::vector<Tensor> out = interpret(g, {input}, {});
  EXPECT_TRUE(g_released);
  expect_same(out[0], neg(input));

  // Used again by the output, the copy stays alive until the end.
  Graph kept;
  const Node* kx = kept.add_placeholder("x", f32({c(4)}));
  const Node* kcopy = kept.add_call(remember_op(), {kx->out()}, {f32({c(4)})});
  const Node* kcheck = kept.add_call(is_released_op(), {kcopy->out()}, {f32({c(4)})});
  kept.set_output({kcheck->out(), kcopy->out()});
  g_released = true;
  interpret(kept, {input}, {});
  EXPECT_FALSE(g_released);
}

TEST(Interpreter, ChecksEachResultAgainstItsSpec) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2), c(3)}));
  const Node* relu_node = g.add_call(find_op("aten::relu"), {x->out()}, {f32({c(3), c(2)})});
  g.set_output({relu_node->out()});
  expect_error(
      [&] {
        interpret(g, {randn({2, 3}, 1)}, {});
      },
      ErrorKind::Internal,
      "interpret: node %relu (aten::relu): output 0 is f32[2, 3], its spec says "
      "f32[3, 2] = [3, 2]");
}

TEST(Interpreter, VerifiesTheGraphFirst) {
  Graph g;
  g.add_placeholder("x", f32({c(2)}));
  expect_error([&] { interpret(g, {randn({2}, 1)}, {}); }, ErrorKind::Internal,
               "verify: the graph has no output node");
}

}  // namespace
}  // namespace xport::ir
