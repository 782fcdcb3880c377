#pragma once
// A residual convolution block built directly as a graph, with every pattern the runtime's
// load-time fusion looks for and the cases it must leave alone:
//
//   x: f32[s0, 8, 10, 10]    s0 (batch) in [1, 64]
//   r1 = relu(batch_norm(conv3x3(x, w1)))                 conv + bn + relu
//   y  = relu(batch_norm(conv1x1(r1, w2, b2)) + x)        conv(bias) + bn + residual + relu
//   c3 = conv3x3/2(y, w3)                                 a graph output: nothing absorbed
//   z  = relu(conv1x1(r1, w4) + r1)                       r1 read only by convolutions, as
//                                                         input and residual: kept NHWC
//   return (y, c3, relu(c3), z)

#include <string>

#include "runtime/graph_building.h"

namespace xport::test_support {

inline ExportedProgram conv_block_program() {
  using ir::Argument;
  using ir::TensorSpec;
  using B = GraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  auto n = B::n;
  auto spec = B::spec;
  auto ints = [&](int64_t a, int64_t b) { return Argument(std::vector<Argument>{a, b}); };

  GraphBuilder builder;
  ir::Graph& g = builder.graph;
  uint64_t seed = 1;
  auto param = [&](const std::string& target, std::vector<int64_t> sizes, double scale,
                   double shift = 0) {
    return builder.parameter(target, randn(sizes, seed++) * scale + shift);
  };
  auto positive = [&](const std::string& target, int64_t size) {  // a variance
    return builder.parameter(target, (randn({size}, seed++) * 0.2 + 1.0).abs() + 0.1);
  };
  const ir::ValueRef w1 = param("conv1.weight", {16, 8, 3, 3}, 0.2);
  const ir::ValueRef g1 = param("bn1.weight", {16}, 0.2, 1.0);
  const ir::ValueRef b1 = param("bn1.bias", {16}, 0.1);
  const ir::ValueRef m1 = param("bn1.running_mean", {16}, 0.1);
  const ir::ValueRef v1 = positive("bn1.running_var", 16);
  const ir::ValueRef w2 = param("conv2.weight", {8, 16, 1, 1}, 0.2);
  const ir::ValueRef cb2 = param("conv2.bias", {8}, 0.1);
  const ir::ValueRef g2 = param("bn2.weight", {8}, 0.2, 1.0);
  const ir::ValueRef b2 = param("bn2.bias", {8}, 0.1);
  const ir::ValueRef m2 = param("bn2.running_mean", {8}, 0.1);
  const ir::ValueRef v2 = positive("bn2.running_var", 8);
  const ir::ValueRef w3 = param("conv3.weight", {4, 8, 3, 3}, 0.2);
  const ir::ValueRef w4 = param("conv4.weight", {16, 16, 1, 1}, 0.2);
  std::vector<InputContract> contract;
  const ir::Node* x = builder.user_input("x", {s0, n(8), n(10), n(10)}, contract).node;
  const OpDef& conv = find_op("aten::convolution");
  const OpDef& bn = find_op("aten::_native_batch_norm_legit_no_training");
  const OpDef& relu = find_op("aten::relu");
  auto conv_call = [&](ir::ValueRef in, ir::ValueRef w, Argument bias, int64_t stride, int64_t pad,
                       TensorSpec out) {
    return g.add_call(conv,
                      {in, w, bias, ints(stride, stride), ints(pad, pad), ints(1, 1), false,
                       ints(0, 0), Argument(1)},
                      {out});
  };
  auto bn_call = [&](ir::ValueRef in, ir::ValueRef w, ir::ValueRef b, ir::ValueRef m,
                     ir::ValueRef v, TensorSpec out) {
    return g.add_call(bn, {in, w, b, m, v, 0.1, 1e-5}, {out, spec({n(0)}), spec({n(0)})});
  };
  const TensorSpec wide = spec({s0, n(16), n(10), n(10)}), narrow = spec({s0, n(8), n(10), n(10)});
  const ir::Node* c1 = conv_call(x->out(), w1, Argument(), 1, 1, wide);
  const ir::Node* n1 = bn_call(c1->out(), g1, b1, m1, v1, wide);
  const ir::Node* r1 = g.add_call(relu, {n1->out()}, {wide});
  const ir::Node* c2 = conv_call(r1->out(), w2, cb2, 1, 0, narrow);
  const ir::Node* n2 = bn_call(c2->out(), g2, b2, m2, v2, narrow);
  const ir::Node* sum =
      g.add_call(find_op("aten::add.Tensor"), {n2->out(), x->out(), Argument(1)}, {narrow});
  const ir::Node* y = g.add_call(relu, {sum->out()}, {narrow});
  const TensorSpec small = spec({s0, n(4), n(5), n(5)});
  const ir::Node* c3 = conv_call(y->out(), w3, Argument(), 2, 1, small);
  const ir::Node* r3 = g.add_call(relu, {c3->out()}, {small});
  const ir::Node* c4 = conv_call(r1->out(), w4, Argument(), 1, 0, wide);
  const ir::Node* sum4 =
      g.add_call(find_op("aten::add.Tensor"), {c4->out(), r1->out(), Argument(1)}, {wide});
  const ir::Node* z = g.add_call(relu, {sum4->out()}, {wide});
  builder.outputs({y->out(), c3->out(), r3->out(), z->out()});
  return ExportedProgram(std::move(builder.graph), std::move(builder.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{1, 64}, false}},
                         std::move(builder.state));
}

// ResNet's stem as a graph: x: f32[s0, C, 12, 12], s0 in [1, 64];
//   p = max_pool2d(relu(conv3x3(x, w1)), 3, stride 2, padding 1)   read by convolutions only:
//                                                                  kept in their layout
//   return (conv1x1(p, w2), conv3x3(p, w3))
// With C = 16 the layout is oneDNN's channel blocks; with 12 (no whole block) channels-last.
inline ExportedProgram pool_between_convolutions_program(int64_t channels) {
  using ir::Argument;
  using B = GraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  auto n = B::n;
  auto spec = B::spec;
  auto ints = [&](int64_t a, int64_t b) { return Argument(std::vector<Argument>{a, b}); };
  GraphBuilder builder;
  ir::Graph& g = builder.graph;
  const int64_t c = channels;
  const ir::ValueRef w1 = builder.parameter("conv1.weight", randn({c, c, 3, 3}, 1) * 0.2);
  const ir::ValueRef w2 = builder.parameter("conv2.weight", randn({c, c, 1, 1}, 2) * 0.2);
  const ir::ValueRef w3 = builder.parameter("conv3.weight", randn({c, c, 3, 3}, 3) * 0.2);
  std::vector<InputContract> contract;
  const ir::Node* x = builder.user_input("x", {s0, n(c), n(12), n(12)}, contract).node;
  const OpDef& conv = find_op("aten::convolution");
  auto conv_call = [&](ir::ValueRef in, ir::ValueRef w, int64_t pad, int64_t size) {
    return g.add_call(conv,
                      {in, w, Argument(), ints(1, 1), ints(pad, pad), ints(1, 1), false,
                       ints(0, 0), Argument(1)},
                      {spec({s0, n(c), n(size), n(size)})});
  };
  const ir::Node* c1 = conv_call(x->out(), w1, 1, 12);
  const ir::Node* r1 = g.add_call(find_op("aten::relu"), {c1->out()}, {c1->outputs()[0]});
  const ir::Node* pool =
      g.add_call(find_op("aten::max_pool2d"),
                 {r1->out(), ints(3, 3), ints(2, 2), ints(1, 1), ints(1, 1), false},
                 {spec({s0, n(c), n(6), n(6)})});
  const ir::Node* c2 = conv_call(pool->out(), w2, 0, 6);
  const ir::Node* c3 = conv_call(pool->out(), w3, 1, 6);
  builder.outputs({c2->out(), c3->out()});
  return ExportedProgram(std::move(builder.graph), std::move(builder.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{1, 64}, false}},
                         std::move(builder.state));
}

}  // namespace xport::test_support
