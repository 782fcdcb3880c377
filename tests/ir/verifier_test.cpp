#include <gtest/gtest.h>

#include "ir/ir_test_util.h"
#include "xport/ir/ir.h"

namespace xport::ir {
namespace {

using testing::c;
using testing::expect_error;
using testing::f32;
using testing::s0;

void expect_invalid(const Graph& g, const std::string& text) {
  expect_error([&] { g.verify(); }, ErrorKind::Internal, text);
}

TEST(Verifier, AcceptsAWellFormedGraph) { EXPECT_NO_THROW(testing::linear_relu_graph().verify()); }

TEST(Verifier, RejectsAReferenceToANodeOfAnotherGraph) {
  Graph other = testing::linear_relu_graph();
  Graph g;
  g.add_placeholder("x", f32({s0(), c(3)}));
  const Node* relu =
      g.add_call(find_op("aten::relu"), {other.nodes()[0]->out()}, {f32({s0(), c(3)})});
  g.set_output({relu->out()});
  expect_invalid(g,
                 "verify: node %relu (aten::relu): argument 0 refers to a node that is not in "
                 "this graph");
}

TEST(Verifier, RejectsAForwardReference) {
  Graph g = testing::linear_relu_graph();
  const Node* relu = g.nodes()[5].get();
  g.insert_call(3, find_op("aten::neg"), {relu->out()}, {f32({s0(), c(10)})});
  expect_invalid(g, "verify: node %neg (aten::neg): argument 0 refers to %relu, which comes later");
}

TEST(Verifier, RejectsAValueIndexOutOfRange) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  const Node* relu = g.add_call(find_op("aten::relu"), {x->out(1)}, {f32({c(2)})});
  g.set_output({relu->out()});
  expect_invalid(g,
                 "verify: node %relu (aten::relu): argument 0 refers to value 1 of %x, which "
                 "has 1 values");
}

TEST(Verifier, RejectsAValueIndexOutOfRangeInTheOutput) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(4)}));
  const Node* split =
      g.add_call(find_op("aten::split.Tensor"), {x->out(), 2, 0}, {f32({c(2)}), f32({c(2)})});
  g.set_output({split->out(2)});
  expect_invalid(g, "verify: node %output (output): argument 0 refers to value 2 of %split");
}

TEST(Verifier, RejectsAWrongArgumentCount) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2), c(2)}));
  const Node* addmm =
      g.add_call(find_op("aten::addmm"), {x->out(), x->out(), x->out()}, {f32({c(2), c(2)})});
  g.set_output({addmm->out()});
  expect_invalid(g, "verify: node %addmm (aten::addmm): has 3 arguments, its schema has 5");
}

TEST(Verifier, RejectsAnIntWhereATensorIsExpected) {
  Graph g;
  g.add_placeholder("x", f32({c(2)}));
  const Node* relu = g.add_call(find_op("aten::relu"), {2}, {f32({c(2)})});
  g.set_output({relu->out()});
  expect_invalid(g,
                 "verify: node %relu (aten::relu): argument 0 (self) must be Tensor, got an "
                 "int (2)");
}

TEST(Verifier, RejectsAStringWhereAScalarIsExpected) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  const Node* add = g.add_call(find_op("aten::add.Tensor"), {x->out(), x->out(), 1}, {f32({c(2)})});
  const Node* add1 =
      g.add_call(find_op("aten::add.Tensor"), {add->out(), x->out(), "two"}, {f32({c(2)})});
  g.set_output({add1->out()});
  expect_invalid(g,
                 "verify: node %add_1 (aten::add.Tensor): argument 2 (alpha) must be Scalar, "
                 "got a str (\"two\")");
}

TEST(Verifier, ChecksEachElementOfAList) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  const Node* cat =
      g.add_call(find_op("aten::cat"), {std::vector<Argument>{x->out(), 2}, 0}, {f32({c(4)})});
  g.set_output({cat->out()});
  expect_invalid(g,
                 "verify: node %cat (aten::cat): argument 0 (tensors) must be Tensor[], but "
                 "element 1 is an int (2)");
}

TEST(Verifier, RejectsANonListForAListArgument) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2), c(3)}));
  const Node* r = g.add_call(find_op("aten::reshape"), {x->out(), 2.5}, {f32({c(6)})});
  g.set_output({r->out()});
  expect_invalid(g, "argument 1 (shape) must be SymInt[], got a float (2.5)");
}

TEST(Verifier, AcceptsNoneForOptionalsAndIntsForFloats) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({s0(), c(3)}));
  const Node* ln = g.add_call(find_op("aten::layer_norm"),
                              {x->out(), std::vector<Argument>{3}, Argument(), Argument(), 0, true},
                              {f32({s0(), c(3)})});
  // `int[1]? dim` also takes one int, as bind_args does.
  const Node* sum = g.add_call(find_op("aten::sum.dim_IntList"),
                               {ln->out(), 1, false, DType::Float32}, {f32({s0()})});
  g.set_output({sum->out()});
  EXPECT_NO_THROW(g.verify());
}

TEST(Verifier, RejectsNoneForARequiredArgument) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2), c(3)}));
  const Node* ln =
      g.add_call(find_op("aten::layer_norm"),
                 {x->out(), std::vector<Argument>{3}, Argument(), Argument(), Argument(), true},
                 {f32({c(2), c(3)})});
  g.set_output({ln->out()});
  expect_invalid(g, "argument 4 (eps) must be float, got None");
}

TEST(Verifier, RejectsABooleanExpressionWhereAnIntIsExpected) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({s0()}));
  const Node* split =
      g.add_call(find_op("aten::split.Tensor"), {x->out(), sym::lt(s0(), c(4)), 0}, {f32({c(2)})});
  g.set_output({split->out(0)});
  expect_invalid(g, "argument 1 (split_size) must be SymInt, got a bool expression (s0 <= 3)");
}

TEST(Verifier, RejectsAWrongNumberOfOutputSpecs) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  const Node* relu = g.add_call(find_op("aten::relu"), {x->out()}, {f32({c(2)}), f32({c(2)})});
  g.set_output({relu->out()});
  expect_invalid(g, "verify: node %relu (aten::relu): has 2 output specs, its schema returns 1");
}

TEST(Verifier, AcceptsAnyNumberOfValuesForAListResult) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(6)}));
  const Node* split = g.add_call(find_op("aten::split.Tensor"), {x->out(), 2, 0},
                                 {f32({c(2)}), f32({c(2)}), f32({c(2)})});
  g.set_output({split->out(2)});
  EXPECT_NO_THROW(g.verify());
}

TEST(Verifier, RejectsASecondOutputNode) {
  Graph g = testing::linear_relu_graph();
  g.set_output({g.nodes()[0]->out()});
  expect_invalid(g,
                 "verify: node %output_1 (output): comes after the output node %output (a graph "
                 "has one output node)");
}

TEST(Verifier, RejectsACallAfterTheOutputNode) {
  Graph g = testing::linear_relu_graph();
  g.add_call(find_op("aten::relu"), {g.nodes()[0]->out()}, {f32({s0(), c(3)})});
  expect_invalid(g,
                 "verify: node %relu_1 (aten::relu): comes after the output node %output (the "
                 "output node must be last)");
}

TEST(Verifier, RejectsAGraphWithoutOutput) {
  Graph g;
  g.add_placeholder("x", f32({c(2)}));
  expect_invalid(g, "verify: the graph has no output node");
}

}  // namespace
}  // namespace xport::ir
