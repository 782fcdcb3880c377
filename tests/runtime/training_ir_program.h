#pragma once
// A program as PyTorch's training IR writes it, with composite ops (no meta function, run as
// their decomposition) where the core IR has kernels:
//
//   x: f32[1, s0, 16]    img: f32[s0, 3, 6, 6]    s0 in [1, 64]
//   a = gelu(linear(transpose(x, 0, 1), w1, b1))   three dims, strided but dense (as BERT's)
//   y = linear(a, w2)                                    no bias
//   r = conv2d(img, wr, None, [1, 1], [1, 1], [1, 1], 1)
//   z = relu_(add_(batch_norm(conv2d(img, wc, bc, ...), ..., training=False), r))
//   return (y, z)                      (add_: Hugging Face ResNet's `hidden_state += residual`)

#include "runtime/graph_building.h"

namespace xport::test_support {

inline ExportedProgram training_ir_program() {
  using ir::Argument;
  using B = GraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  auto n = B::n;
  auto spec = B::spec;
  const auto ints = [&](std::vector<int64_t> v) {
    return Argument(std::vector<Argument>(v.begin(), v.end()));
  };

  GraphBuilder builder;
  ir::Graph& g = builder.graph;
  const ir::ValueRef w1 = builder.parameter("fc1.weight", randn({32, 16}, 1) * 0.3);
  const ir::ValueRef b1 = builder.parameter("fc1.bias", randn({32}, 2) * 0.1);
  const ir::ValueRef w2 = builder.parameter("fc2.weight", randn({8, 32}, 3) * 0.3);
  const ir::ValueRef wc = builder.parameter("conv.weight", randn({5, 3, 3, 3}, 4) * 0.3);
  const ir::ValueRef bc = builder.parameter("conv.bias", randn({5}, 5) * 0.1);
  const ir::ValueRef gamma = builder.parameter("bn.weight", randn({5}, 6) * 0.2 + 1);
  const ir::ValueRef beta = builder.parameter("bn.bias", randn({5}, 7) * 0.1);
  const ir::ValueRef mean = builder.parameter("bn.running_mean", randn({5}, 8) * 0.1);
  const ir::ValueRef var = builder.parameter("bn.running_var", rand({5}, 9) + 0.5);
  const ir::ValueRef wr = builder.parameter("shortcut.weight", randn({5, 3, 3, 3}, 10) * 0.3);
  std::vector<InputContract> contract;
  const ir::ValueRef x = builder.user_input("x", {n(1), s0, n(16)}, contract);
  const ir::ValueRef img = builder.user_input("img", {s0, n(3), n(6), n(6)}, contract);

  const ir::Node* t = g.add_call(
      find_op("aten::transpose.int"), {x, Argument(0), Argument(1)},
      {ir::TensorSpec{DType::Float32, {s0, n(1), n(16)}, {n(16), sym::mul(s0, n(16)), n(1)},
                      nullptr}});
  const OpDef& linear = find_op("aten::linear");
  const ir::Node* h = g.add_call(linear, {t->out(), w1, b1}, {spec({s0, n(1), n(32)})});
  const ir::Node* a = g.add_call(find_op("aten::gelu"), {h->out(), "none"},
                                 {spec({s0, n(1), n(32)})});
  const ir::Node* y = g.add_call(linear, {a->out(), w2, Argument()}, {spec({s0, n(1), n(8)})});
  const std::vector<sym::ExprPtr> image = {s0, n(5), n(6), n(6)};
  const ir::Node* c = g.add_call(find_op("aten::conv2d"),
                                 {img, wc, bc, ints({1, 1}), ints({1, 1}), ints({1, 1}),
                                  Argument(1)},
                                 {spec(image)});
  const ir::Node* bn = g.add_call(
      find_op("aten::batch_norm"),
      {c->out(), gamma, beta, mean, var, false, 0.1, 1e-5, false}, {spec(image)});
  const ir::Node* r = g.add_call(find_op("aten::conv2d"),
                                 {img, wr, Argument(), ints({1, 1}), ints({1, 1}), ints({1, 1}),
                                  Argument(1)},
                                 {spec(image)});
  const ir::Node* sum =
      g.add_call(find_op("aten::add_.Tensor"), {bn->out(), r->out(), 1.0}, {spec(image)});
  const ir::Node* z = g.add_call(find_op("aten::relu_"), {sum->out()}, {spec(image)});
  builder.outputs({y->out(), z->out()});
  return ExportedProgram(std::move(builder.graph), std::move(builder.signature), contract,
                         {SymbolSpec{"s0", "x.size(1)", "batch", sym::Range{1, 64}, false}},
                         std::move(builder.state));
}

}  // namespace xport::test_support
