// Composite expansion on its own: calls of composite ops become the calls their decompositions
// make, traced over the graph's symbols; what they leave verifies, checks against the ops' meta
// functions and, interpreted, gives what the original graph gave. A decomposition that would
// decide on sizes where the symbols' ranges do not settle it keeps its call.
#include <gtest/gtest.h>

#include "ir/ir_test_util.h"
#include "ir/passes/composite_expansion.h"
#include "xport/ops/functions.h"
#include "xport/ops/library.h"

namespace xport::ir::passes {
namespace {

using testing::c;
using testing::f32;
using testing::s0;

// Every symbol of these graphs is s0, in `range`.
ExpansionStats expand(Graph& graph, sym::Range range) {
  return expand_composites(graph, [range](sym::ExprPtr) { return range; });
}

size_t count_calls(const Graph& graph, const std::string& op) {
  return graph.find_nodes(op).size();
}

// The expanded graph is well formed and gives what the original gives, bit for bit.
void expect_same_results(const Graph& before, const Graph& after, const std::vector<Tensor>& inputs,
                         int64_t s0_value) {
  after.verify();
  EXPECT_TRUE(verify_metadata(after, {{s0(), s0_value}}));
  const std::vector<Tensor> want = interpret(before, inputs, {{s0(), s0_value}});
  const std::vector<Tensor> got = interpret(after, inputs, {{s0(), s0_value}});
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].int_sizes(), want[i].int_sizes()) << "output " << i;
    EXPECT_EQ(0, (got[i] - want[i]).abs().max().item<float>()) << "output " << i;
  }
}

//   x: f32[s0, 8]   layer_norm(x, [8], w, b) @ m    (m: f32[8, 3])
Graph layer_norm_then_matmul() {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({s0(), c(8)}));
  const Node* w = g.add_placeholder("w", f32({c(8)}));
  const Node* b = g.add_placeholder("b", f32({c(8)}));
  const Node* m = g.add_placeholder("m", f32({c(8), c(3)}));
  const Node* norm = g.add_call(
      find_op("aten::layer_norm"),
      {x->out(), std::vector<Argument>{c(8)}, w->out(), b->out(), Argument(1e-5), Argument(true)},
      {f32({s0(), c(8)})});
  const Node* product =
      g.add_call(find_op("aten::matmul"), {norm->out(), m->out()}, {f32({s0(), c(3)})});
  g.set_output({product->out()});
  return g;
}

TEST(CompositeExpansion, CompositeCallsBecomeTheCallsTheirDecompositionsMake) {
  const Graph before = layer_norm_then_matmul();
  Graph after = before.clone();
  const ExpansionStats stats = expand(after, {1, 64});
  EXPECT_EQ(stats.expanded, 2) << stats.first_kept;
  EXPECT_EQ(stats.kept, 0);
  EXPECT_EQ(count_calls(after, "aten::layer_norm"), 0u);
  EXPECT_EQ(count_calls(after, "aten::matmul"), 0u);
  EXPECT_EQ(count_calls(after, "aten::native_layer_norm"), 1u);
  EXPECT_EQ(count_calls(after, "aten::mm"), 1u);
  for (int64_t rows : {1, 5, 64}) {
    const std::vector<Tensor> inputs = {randn({rows, 8}, 1), randn({8}, 2), randn({8}, 3),
                                        randn({8, 3}, 4)};
    expect_same_results(before, after, inputs, rows);
  }
}

//   x: f32[s0, 6]   reshape(transpose(x, 0, 1), [6 * s0])
// The transposed x is a view of the flat result only when s0 == 1, so reshape decides on s0.
Graph reshape_of_transpose() {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({s0(), c(6)}));
  TensorSpec transposed = f32({c(6), s0()});
  transposed.strides = {c(1), c(6)};
  const Node* t = g.add_call(find_op("aten::transpose.int"), {x->out(), 0, 1}, {transposed});
  const sym::ExprPtr flat = sym::mul(c(6), s0());
  const Node* r =
      g.add_call(find_op("aten::reshape"), {t->out(), std::vector<Argument>{flat}}, {f32({flat})});
  g.set_output({r->out()});
  return g;
}

TEST(CompositeExpansion, ADecisionOnSizesIsTakenOnlyWhereTheRangesSettleIt) {
  const Graph before = reshape_of_transpose();
  // s0 in [1, 64]: whether the reshape copies depends on s0, so it stays; the transpose goes.
  Graph open = before.clone();
  const ExpansionStats kept = expand(open, {1, 64});
  EXPECT_EQ(kept.expanded, 1);
  EXPECT_EQ(kept.kept, 1);
  EXPECT_NE(kept.first_kept.find("aten::reshape"), std::string::npos) << kept.first_kept;
  EXPECT_EQ(count_calls(open, "aten::reshape"), 1u);
  // s0 in [2, 64]: it always copies.
  Graph settled = before.clone();
  const ExpansionStats both = expand(settled, {2, 64});
  EXPECT_EQ(both.expanded, 2) << both.first_kept;
  EXPECT_EQ(count_calls(settled, "aten::reshape"), 0u);
  EXPECT_EQ(count_calls(settled, "aten::clone"), 1u);
  for (int64_t rows : {1, 5}) {
    expect_same_results(before, open, {randn({rows, 6}, 7)}, rows);
  }
  for (int64_t rows : {2, 5}) {
    expect_same_results(before, settled, {randn({rows, 6}, 7)}, rows);
  }
}

TEST(CompositeExpansion, TracesOnTheLayoutsTheOpsMakeNotTheOnesTheArchiveRecords) {
  // relu's result recorded column-major (as another engine might lay it out); xport's relu
  // makes it row-major, where the reshape is a view.
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(4), c(6)}));
  TensorSpec column_major = f32({c(4), c(6)});
  column_major.strides = {c(1), c(4)};
  const Node* relu = g.add_call(find_op("aten::relu"), {x->out()}, {column_major});
  const Node* r = g.add_call(find_op("aten::reshape"), {relu->out(), std::vector<Argument>{c(24)}},
                             {f32({c(24)})});
  g.set_output({r->out()});
  const ExpansionStats stats = expand(g, {1, 64});
  EXPECT_EQ(stats.expanded, 1) << stats.first_kept;
  EXPECT_EQ(count_calls(g, "aten::clone"), 0u);
  EXPECT_EQ(count_calls(g, "aten::view"), 1u);
}

TEST(CompositeExpansion, ADecompositionThatReadsDataKeepsItsCall) {
  static const bool registered = [] {
    Library("expansion_test")
        .define("scaled_by_sum(Tensor x) -> Tensor")
        .impl_meta("scaled_by_sum",
                   [](const std::vector<Value>& a) { return Value(empty_like(a[0].to_tensor())); })
        .impl_decomposition("scaled_by_sum", [](const std::vector<Value>& a) {
          const Tensor& x = a[0].to_tensor();
          return Value(x * x.sum().item_float());
        });
    return true;
  }();
  (void)registered;
  Graph g;
  const Node* x = g.add_placeholder("x", f32({s0(), c(3)}));
  const Node* y =
      g.add_call(find_op("expansion_test::scaled_by_sum"), {x->out()}, {f32({s0(), c(3)})});
  g.set_output({y->out()});
  const ExpansionStats stats = expand(g, {1, 64});
  EXPECT_EQ(stats.expanded, 0);
  EXPECT_EQ(stats.kept, 1);
  EXPECT_NE(stats.first_kept.find("reads a tensor's value"), std::string::npos) << stats.first_kept;
  // Nothing the undone trace inserted is left.
  EXPECT_EQ(g.nodes().size(), 3u);
  g.verify();
}

}  // namespace
}  // namespace xport::ir::passes
