#pragma once
// GELUs written out elementwise, as PyTorch's exports of Hugging Face models hold them, which
// load-time fusion takes as aten::gelu, and one it must not (the numbers are Scalar overloads'
// arguments, as a loaded archive holds them):
//
//   x: f32[s0, 16]    s0 in [1, 512]    w1: a [32, 16] parameter, b1 [32]
//   h = addmm(b1, x, t(w1))
//   a = (h * 0.5) * (tanh((h + pow(h, 3) * 0.044715) * sqrt(2 / pi)) + 1)
//                                   GPT-2's gelu_new, in the order torch.export records it
//   b = (x * 0.5) * (erf(x / sqrt(2)) + 1)                            the erf form
//   c = as a, with 0.04 for 0.044715: not a GELU, left alone
//   y = x + 0.0; d = as a on y, with y.add_(1.0) after y * 0.5: the formula reads two values
//     of y, so it is not gelu(y) where it ends, left alone
//   return (a, b, c, d)

#include <cmath>
#include <numbers>

#include "runtime/graph_building.h"

namespace xport::test_support {

inline ExportedProgram gelu_program() {
  using ir::Argument;
  using B = GraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  GraphBuilder builder;
  ir::Graph& g = builder.graph;
  const ir::ValueRef w1 = builder.parameter("fc1.weight", randn({32, 16}, 1) * 0.3);
  const ir::ValueRef b1 = builder.parameter("fc1.bias", randn({32}, 2) * 0.1);
  std::vector<InputContract> contract;
  const ir::ValueRef x = builder.user_input("x", {s0, B::n(16)}, contract);
  auto call = [&](const char* op, std::vector<Argument> args, const ir::ValueRef& like) {
    return g.add_call(find_op(op), std::move(args), {like.node->outputs()[like.index]})->out();
  };
  const ir::Node* t1 = g.add_call(find_op("aten::transpose.int"), {w1, Argument(0), Argument(1)},
                                  {B::transposed(16, 32)});
  const ir::ValueRef h =
      g.add_call(find_op("aten::addmm"), {b1, x, t1->out(), Argument(1), Argument(1)},
                 {B::spec({s0, B::n(32)})})
          ->out();
  const auto tanh_gelu = [&](const ir::ValueRef& v, double cubic, bool update = false) {
    const ir::ValueRef half = call("aten::mul.Scalar", {v, 0.5}, v);
    if (update) call("aten::add_.Scalar", {v, 1.0, Argument(1)}, v);
    const ir::ValueRef cube = call("aten::pow.Tensor_Scalar", {v, 3.0}, v);
    const ir::ValueRef scaled = call("aten::mul.Scalar", {cube, cubic}, v);
    const ir::ValueRef inner = call("aten::add.Tensor", {v, scaled, Argument(1)}, v);
    const ir::ValueRef arg = call("aten::mul.Scalar", {inner, std::sqrt(2 / std::numbers::pi)}, v);
    const ir::ValueRef t = call("aten::tanh", {arg}, v);
    const ir::ValueRef one_plus = call("aten::add.Scalar", {t, 1.0, Argument(1)}, v);
    return call("aten::mul.Tensor", {half, one_plus}, v);
  };
  const ir::ValueRef a = tanh_gelu(h, 0.044715);
  const ir::ValueRef half = call("aten::mul.Scalar", {x, 0.5}, x);
  const ir::ValueRef scaled = call("aten::div.Scalar", {x, std::sqrt(2.0)}, x);
  const ir::ValueRef e = call("aten::erf", {scaled}, x);
  const ir::ValueRef b =
      call("aten::mul.Tensor", {half, call("aten::add.Scalar", {e, 1.0, Argument(1)}, x)}, x);
  const ir::ValueRef c = tanh_gelu(x, 0.04);
  const ir::ValueRef y = call("aten::add.Scalar", {x, 0.0, Argument(1)}, x);
  const ir::ValueRef d = tanh_gelu(y, 0.044715, true);
  builder.outputs({a, b, c, d});
  return ExportedProgram(std::move(builder.graph), std::move(builder.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{1, 512}, false}},
                         std::move(builder.state));
}

}  // namespace xport::test_support
