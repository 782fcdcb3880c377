#include <gtest/gtest.h>

#include "ir/ir_test_util.h"
#include "xport/ir/ir.h"

namespace xport::ir {
namespace {

using testing::c;
using testing::expect_error;
using testing::f32;
using testing::s0;

std::vector<std::string> names(const Graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes()) out.push_back(n->name());
  return out;
}

std::vector<std::string> names(const std::vector<const Node*>& nodes) {
  std::vector<std::string> out;
  for (const Node* n : nodes) out.push_back(n->name());
  return out;
}

TEST(Graph, NamesCallsAfterTheOpsBaseNameWithACounter) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  const Node* a = g.add_call(find_op("aten::add.Tensor"), {x->out(), x->out(), 1}, {f32({c(2)})});
  const Node* b = g.add_call(find_op("aten::add.Tensor"), {a->out(), x->out(), 1}, {f32({c(2)})});
  const Node* m =
      g.add_call(find_op("aten::addmm"), {x->out(), x->out(), x->out(), 1, 1}, {f32({c(2)})});
  EXPECT_EQ(a->name(), "add");
  EXPECT_EQ(b->name(), "add_1");
  EXPECT_EQ(m->name(), "addmm");
}

TEST(Graph, CallNamesSkipNamesTakenByPlaceholders) {
  Graph g;
  const Node* x = g.add_placeholder("add", f32({c(2)}));
  g.add_placeholder("add_2", f32({c(2)}));
  const Node* a = g.add_call(find_op("aten::add.Tensor"), {x->out(), x->out(), 1}, {f32({c(2)})});
  const Node* b = g.add_call(find_op("aten::add.Tensor"), {a->out(), x->out(), 1}, {f32({c(2)})});
  const Node* d = g.add_call(find_op("aten::add.Tensor"), {b->out(), x->out(), 1}, {f32({c(2)})});
  EXPECT_EQ(a->name(), "add_1");
  EXPECT_EQ(b->name(), "add_3");
  EXPECT_EQ(d->name(), "add_4");
}

TEST(Graph, RejectsPlaceholderNamesThatAreNotIdentifiers) {
  Graph g;
  expect_error([&] { g.add_placeholder("layers.0.weight", f32({c(2)})); }, ErrorKind::InvalidInput,
               "'layers.0.weight' is not a valid input name");
  expect_error([&] { g.add_placeholder("0x", f32({c(2)})); }, ErrorKind::InvalidInput,
               "'0x' is not a valid input name");
  expect_error([&] { g.add_placeholder("", f32({c(2)})); }, ErrorKind::InvalidInput,
               "is not a valid input name");
  EXPECT_NO_THROW(g.add_placeholder("_Layer_0", f32({c(2)})));
}

TEST(Graph, RejectsDuplicatePlaceholderNames) {
  Graph g;
  g.add_placeholder("x", f32({c(2)}));
  expect_error([&] { g.add_placeholder("x", f32({c(2)})); }, ErrorKind::InvalidInput,
               "the name 'x' is already used");
}

TEST(Graph, InsertsLatePlaceholdersBeforeTheCalls) {
  Graph g = testing::linear_relu_graph();
  const Node* late = g.add_placeholder("c_scale", f32({}));
  EXPECT_EQ(names(g), (std::vector<std::string>{"x", "p_fc_weight", "p_fc_bias", "c_scale", "t",
                                                "addmm", "relu", "output"}));
  EXPECT_EQ(late->position(), 3u);
  for (size_t i = 0; i < g.nodes().size(); ++i) EXPECT_EQ(g.nodes()[i]->position(), i);
  EXPECT_EQ(g.placeholders().size(), 4u);
  EXPECT_NO_THROW(g.verify());
}

TEST(Graph, ListsUsersInGraphOrder) {
  Graph g = testing::linear_relu_graph();
  const Node* x = g.nodes()[0].get();
  const Node* w = g.nodes()[1].get();
  const Node* addmm = g.nodes()[4].get();
  EXPECT_EQ(names(g.users(x)), (std::vector<std::string>{"addmm"}));
  EXPECT_EQ(names(g.users(w)), (std::vector<std::string>{"t"}));
  EXPECT_EQ(names(g.users(addmm)), (std::vector<std::string>{"relu"}));
  EXPECT_EQ(names(g.users(g.nodes()[5].get())), (std::vector<std::string>{"output"}));
  EXPECT_TRUE(g.users(g.output()).empty());
}

TEST(Graph, CountsAUserOnceEvenWhenItUsesAValueTwice) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  g.add_call(find_op("aten::add.Tensor"), {x->out(), x->out(), 1}, {f32({c(2)})});
  EXPECT_EQ(names(g.users(x)), (std::vector<std::string>{"add"}));
}

TEST(Graph, FindsUsersThroughListArguments) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  const Node* y = g.add_placeholder("y", f32({c(2)}));
  const Node* cat = g.add_call(find_op("aten::cat"), {std::vector<Argument>{x->out(), y->out()}, 0},
                               {f32({c(4)})});
  g.set_output({cat->out()});
  EXPECT_EQ(names(g.users(y)), (std::vector<std::string>{"cat"}));
}

TEST(Graph, OutputIsTheOutputNode) {
  Graph g = testing::linear_relu_graph();
  ASSERT_NE(g.output(), nullptr);
  EXPECT_EQ(g.output()->kind(), NodeKind::Output);
  EXPECT_EQ(g.output()->name(), "output");
  Graph empty;
  EXPECT_EQ(empty.output(), nullptr);
}

TEST(Graph, EliminatesAnUnusedChainOfCalls) {
  Graph g = testing::linear_relu_graph();
  const Node* x = g.nodes()[0].get();
  // neg(x) -> relu(neg) -> add(relu, x): nothing uses the add, so the whole chain goes.
  Node* neg = g.insert_call(3, find_op("aten::neg"), {x->out()}, {f32({s0(), c(3)})});
  Node* relu = g.insert_call(4, find_op("aten::relu"), {neg->out()}, {f32({s0(), c(3)})});
  g.insert_call(5, find_op("aten::add.Tensor"), {relu->out(), x->out(), 1}, {f32({s0(), c(3)})});
  EXPECT_EQ(g.nodes().size(), 10u);
  g.verify();

  g.eliminate_dead_code();
  EXPECT_EQ(names(g), (std::vector<std::string>{"x", "p_fc_weight", "p_fc_bias", "t", "addmm",
                                                "relu", "output"}));
  for (size_t i = 0; i < g.nodes().size(); ++i) EXPECT_EQ(g.nodes()[i]->position(), i);
  EXPECT_NO_THROW(g.verify());
  EXPECT_EQ(g.to_string(), testing::linear_relu_graph().to_string());
}

TEST(Graph, KeepsUnusedPlaceholdersAndUsedCalls) {
  Graph g;
  g.add_placeholder("unused", f32({c(2)}));
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  const Node* relu = g.add_call(find_op("aten::relu"), {x->out()}, {f32({c(2)})});
  g.set_output({relu->out()});
  g.eliminate_dead_code();
  EXPECT_EQ(names(g), (std::vector<std::string>{"unused", "x", "relu", "output"}));
}

TEST(Graph, EliminatesAMultiOutputCallOnlyWhenNoneOfItsValuesIsUsed) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(4), c(3)}));
  const Node* split = g.add_call(find_op("aten::split.Tensor"), {x->out(), 2, 0},
                                 {f32({c(2), c(3)}), f32({c(2), c(3)})});
  const Node* dead = g.add_call(find_op("aten::split.Tensor"), {x->out(), 2, 0},
                                {f32({c(2), c(3)}), f32({c(2), c(3)})});
  g.set_output({split->out(1)});
  const std::string dead_name = dead->name();
  g.eliminate_dead_code();
  EXPECT_EQ(names(g), (std::vector<std::string>{"x", "split", "output"}));
  EXPECT_EQ(dead_name, "split_1");
}

TEST(Graph, ClonePrintsIdenticallyAndOwnsItsNodes) {
  Graph original = testing::linear_relu_graph();
  Graph copy = original.clone();
  EXPECT_EQ(copy.to_string(), original.to_string());
  EXPECT_NO_THROW(copy.verify());
  // Every reference points into the copy, not the original.
  for (const auto& node : copy.nodes()) {
    for (const Argument& a : node->args()) {
      if (const auto* ref = std::get_if<ValueRef>(&a.value)) {
        EXPECT_EQ(ref->node, copy.nodes()[ref->node->position()].get());
      }
    }
  }
  EXPECT_EQ(copy.output()->args()[0], copy.nodes()[5]->out());
  // The copy outlives the original, and keeps naming calls where the original left off.
  { Graph gone = std::move(original); }
  EXPECT_NO_THROW(copy.verify());
  const Node* relu =
      copy.add_call(find_op("aten::relu"), {copy.nodes()[0]->out()}, {f32({s0(), c(3)})});
  EXPECT_EQ(relu->name(), "relu_1");
}

TEST(Graph, ReplacesAllUsesOfAValue) {
  Graph g = testing::linear_relu_graph();
  const Node* addmm = g.nodes()[4].get();
  const Node* relu = g.nodes()[5].get();
  g.replace_all_uses(relu->out(), addmm->out());
  EXPECT_EQ(g.output()->args()[0], addmm->out());
  EXPECT_TRUE(g.users(relu).empty());
  g.eliminate_dead_code();
  EXPECT_EQ(names(g),
            (std::vector<std::string>{"x", "p_fc_weight", "p_fc_bias", "t", "addmm", "output"}));
}

TEST(Graph, InsertCallKeepsPositionsUpToDate) {
  Graph g = testing::linear_relu_graph();
  const Node* neg =
      g.insert_call(3, find_op("aten::neg"), {g.nodes()[0]->out()}, {f32({s0(), c(3)})});
  EXPECT_EQ(neg->position(), 3u);
  for (size_t i = 0; i < g.nodes().size(); ++i) EXPECT_EQ(g.nodes()[i]->position(), i);
  expect_error([&] { g.insert_call(99, find_op("aten::neg"), {}, {}); }, ErrorKind::InvalidInput,
               "position 99 is past the end");
}

TEST(Graph, ContiguousSpecsHaveRowMajorStrides) {
  const auto s1 = sym::symbol("s1");
  const TensorSpec a = TensorSpec::contiguous(DType::Float32, {s0(), c(3), c(4)});
  EXPECT_EQ(a.strides, (std::vector<sym::ExprPtr>{c(12), c(4), c(1)}));
  const TensorSpec b = TensorSpec::contiguous(DType::Int64, {c(2), s0(), c(1), s1});
  EXPECT_EQ(b.strides, (std::vector<sym::ExprPtr>{sym::mul(s0(), s1), s1, s1, c(1)}));
  EXPECT_TRUE(TensorSpec::contiguous(DType::Float32, {}).strides.empty());
}

TEST(Graph, ASpecMadeConcreteTakesItsSymbolsValues) {
  const auto s1 = sym::symbol("s1");
  // A transposed view of a [s0, 2*s1] tensor, 3 elements into its storage.
  TensorSpec spec;
  spec.dtype = DType::Int64;
  spec.sizes = {sym::mul(c(2), s1), s0()};
  spec.strides = {c(1), sym::mul(c(2), s1)};
  spec.storage_offset = c(3);
  const SymbolValues symbols{{s0(), 5}, {s1, 4}};
  const auto ints = [](const std::vector<SymInt>& values) {
    std::vector<std::optional<int64_t>> out;
    for (const SymInt& v : values) out.push_back(v.maybe_int());
    return out;
  };
  using Ints = std::vector<std::optional<int64_t>>;

  const std::optional<TensorMeta> view = spec.concrete(symbols);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->dtype, DType::Int64);
  EXPECT_EQ(ints(view->sizes), (Ints{8, 5}));
  EXPECT_EQ(ints(view->strides), (Ints{1, 8}));
  EXPECT_EQ(view->storage_offset.maybe_int(), 3);

  const std::optional<TensorMeta> fresh =
      spec.concrete(symbols, TensorSpec::Layout::Contiguous);
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(ints(fresh->strides), (Ints{5, 1}));
  EXPECT_EQ(fresh->storage_offset.maybe_int(), 0);

  EXPECT_FALSE(spec.concrete({{s0(), 5}}).has_value());  // s1 has no value
  EXPECT_TRUE(TensorSpec::none_result().concrete({})->none);
}

}  // namespace
}  // namespace xport::ir
