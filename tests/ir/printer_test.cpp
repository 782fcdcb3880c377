#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/ir_test_util.h"
#include "xport/ir/ir.h"

namespace xport::ir {
namespace {

using testing::c;
using testing::f32;
using testing::s0;

TEST(Printer, PrintsALinearLayerLikeCode) {
  EXPECT_EQ(testing::linear_relu_graph().to_string(),
            "graph(%x : f32[s0, 3], %p_fc_weight : f32[10, 3], %p_fc_bias : f32[10]):\n"
            "  %t = aten::t.default(%p_fc_weight)  # f32[3, 10]\n"
            "  %addmm = aten::addmm.default(%p_fc_bias, %x, %t)  # f32[s0, 10]  model.cpp:12  fc\n"
            "  %relu = aten::relu.default(%addmm)  # f32[s0, 10]  model.cpp:13\n"
            "  return (%relu,)\n");
}

TEST(Printer, PrintsKeywordOnlyArgumentsByNameWhenNotDefault) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  const Node* y = g.add_placeholder("y", f32({c(2)}));
  const Node* add = g.add_call(find_op("aten::add.Tensor"), {x->out(), y->out(), 2}, {f32({c(2)})});
  const Node* gelu = g.add_call(find_op("aten::gelu"), {add->out(), "tanh"}, {f32({c(2)})});
  const Node* gelu1 = g.add_call(find_op("aten::gelu"), {gelu->out(), "none"}, {f32({c(2)})});
  g.set_output({gelu1->out(), add->out()});
  EXPECT_EQ(g.to_string(),
            "graph(%x : f32[2], %y : f32[2]):\n"
            "  %add = aten::add.Tensor(%x, %y, alpha=2)  # f32[2]\n"
            "  %gelu = aten::gelu.default(%add, approximate=\"tanh\")  # f32[2]\n"
            "  %gelu_1 = aten::gelu.default(%gelu)  # f32[2]\n"
            "  return (%gelu_1, %add)\n");
}

TEST(Printer, LeavesOutOnlyTrailingDefaults) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2), c(3)}));
  const auto& sum = find_op("aten::sum.dim_IntList");
  const auto& layer_norm = find_op("aten::layer_norm");
  const std::vector<Argument> dim1 = {1};
  g.add_call(sum, {x->out(), dim1, false, Argument()}, {f32({c(2)})});
  g.add_call(sum, {x->out(), dim1, true, Argument()}, {f32({c(2), c(1)})});
  g.add_call(sum, {x->out(), dim1, false, DType::Float64},
             {TensorSpec::contiguous(DType::Float64, {c(2)})});
  g.add_call(layer_norm, {x->out(), std::vector<Argument>{3}, Argument(), Argument(), 1e-5, true},
             {f32({c(2), c(3)})});
  g.add_call(layer_norm, {x->out(), std::vector<Argument>{3}, Argument(), Argument(), 0.001, true},
             {f32({c(2), c(3)})});
  g.set_output({});
  EXPECT_EQ(g.to_string(),
            "graph(%x : f32[2, 3]):\n"
            "  %sum = aten::sum.dim_IntList(%x, [1])  # f32[2]\n"
            "  %sum_1 = aten::sum.dim_IntList(%x, [1], True)  # f32[2, 1]\n"
            "  %sum_2 = aten::sum.dim_IntList(%x, [1], dtype=torch.float64)  # f64[2]\n"
            "  %layer_norm = aten::layer_norm.default(%x, [3])  # f32[2, 3]\n"
            "  %layer_norm_1 = aten::layer_norm.default(%x, [3], None, None, 0.001)  # f32[2, 3]\n"
            "  return ()\n");
}

TEST(Printer, IndexesTheValuesOfMultiOutputNodes) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(4), c(3)}));
  const Node* y = g.add_placeholder("y", f32({c(1), c(3)}));
  const Node* split = g.add_call(find_op("aten::split.Tensor"), {x->out(), 2, 0},
                                 {f32({c(2), c(3)}), f32({c(2), c(3)})});
  const Node* add = g.add_call(find_op("aten::add.Tensor"), {split->out(0), split->out(1), 1},
                               {f32({c(2), c(3)})});
  const Node* unbind = g.add_call(find_op("aten::unbind.int"), {y->out(), 0}, {f32({c(3)})});
  g.set_output({add->out(), split->out(1), unbind->out(0)});
  g.verify();
  EXPECT_EQ(g.to_string(),
            "graph(%x : f32[4, 3], %y : f32[1, 3]):\n"
            "  %split = aten::split.Tensor(%x, 2)  # (f32[2, 3], f32[2, 3])\n"
            "  %add = aten::add.Tensor(%split[0], %split[1])  # f32[2, 3]\n"
            "  %unbind = aten::unbind.int(%y)  # (f32[3],)\n"
            "  return (%add, %split[1], %unbind[0])\n");
}

TEST(Printer, PrintsSymbolicSizesAndIntegerArguments) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({s0(), c(3)}));
  const Node* reshape =
      g.add_call(find_op("aten::reshape"), {x->out(), std::vector<Argument>{sym::mul(s0(), c(3))}},
                 {f32({sym::mul(s0(), c(3))})});
  const Node* view = g.add_call(find_op("aten::view"),
                                {reshape->out(), std::vector<Argument>{-1, sym::add(s0(), c(1))}},
                                {f32({c(3), sym::add(s0(), c(1))})});
  g.set_output({view->out()});
  EXPECT_EQ(g.to_string(),
            "graph(%x : f32[s0, 3]):\n"
            "  %reshape = aten::reshape.default(%x, [3*s0])  # f32[3*s0]\n"
            "  %view = aten::view.default(%reshape, [-1, s0 + 1])  # f32[3, s0 + 1]\n"
            "  return (%view,)\n");
}

TEST(Printer, PrintsEachKindOfArgument) {
  Graph g;
  const Node* x = g.add_placeholder("x", f32({c(2)}));
  EXPECT_EQ(Argument().str(), "None");
  EXPECT_EQ(Argument(x->out()).str(), "%x");
  EXPECT_EQ(Argument(sym::mul(c(2), s0())).str(), "2*s0");
  EXPECT_EQ(Argument(-3).str(), "-3");
  EXPECT_EQ(Argument(true).str(), "True");
  EXPECT_EQ(Argument(false).str(), "False");
  EXPECT_EQ(Argument("tanh").str(), "\"tanh\"");
  EXPECT_EQ(Argument(std::string("say \"hi\"\\")).str(), "\"say \\\"hi\\\"\\\\\"");
  EXPECT_EQ(Argument(DType::Float32).str(), "torch.float32");
  EXPECT_EQ(Argument(DType::Int64).str(), "torch.int64");
  EXPECT_EQ(Argument(std::vector<Argument>{x->out(), x->out()}).str(), "[%x, %x]");
  EXPECT_EQ(Argument(std::vector<Argument>{}).str(), "[]");
  EXPECT_EQ(Argument(std::vector<Argument>{1, s0(), Argument()}).str(), "[1, s0, None]");
}

TEST(Printer, PrintsDoublesAsPythonsShortestRepr) {
  const auto str = [](double v) { return Argument(v).str(); };
  EXPECT_EQ(str(0.5), "0.5");
  EXPECT_EQ(str(1e-5), "1e-05");
  EXPECT_EQ(str(1.0), "1.0");
  EXPECT_EQ(str(-2.0), "-2.0");
  EXPECT_EQ(str(0.0), "0.0");
  EXPECT_EQ(str(-0.0), "-0.0");
  EXPECT_EQ(str(0.1), "0.1");
  EXPECT_EQ(str(0.0001), "0.0001");
  EXPECT_EQ(str(0.00012), "0.00012");
  EXPECT_EQ(str(1.5e-7), "1.5e-07");
  EXPECT_EQ(str(100000.0), "100000.0");
  EXPECT_EQ(str(123456.789), "123456.789");
  EXPECT_EQ(str(1e16), "1e+16");
  EXPECT_EQ(str(1.25e100), "1.25e+100");
  EXPECT_EQ(str(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(str(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(str(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(str(std::nan("")), "nan");
}

TEST(Printer, PrintsSpecsAsDtypeAndSizes) {
  EXPECT_EQ(f32({}).str(), "f32[]");
  EXPECT_EQ(TensorSpec::contiguous(DType::Int64, {sym::mul(c(2), s0()), c(3)}).str(),
            "i64[2*s0, 3]");
  EXPECT_EQ(TensorSpec::contiguous(DType::Bool, {c(1)}).str(), "b8[1]");
}

TEST(Printer, PrintsAGraphWithoutInputsOrOutput) {
  Graph g;
  EXPECT_EQ(g.to_string(), "graph():\n");
}

}  // namespace
}  // namespace xport::ir
