#pragma once
// A small program built directly as a graph (no capture code), so tests that link only the
// runtime library have something realistic to run: two linear layers with a residual, softmax,
// weight views, a view output and an intermediate that is also an output.
//
//   x: f32[s0, 32]    s0 (batch) in [2, 1024]
//   h = relu(addmm(b1, x, t(w1)))              f32[s0, 64]
//   y = softmax(addmm(b2, h, t(w2)) + x, 1)    f32[s0, 32]
//   return (y, y.view({32 * s0}), h); t(w) is transpose(w, 0, 1)

#include "runtime/graph_building.h"

namespace xport::test_support {

inline ExportedProgram small_program() {
  using ir::Argument;
  using B = GraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  GraphBuilder b;
  ir::Graph& g = b.graph;
  const ir::ValueRef w1 = b.parameter("fc1.weight", randn({64, 32}, 1) * 0.2);
  const ir::ValueRef b1 = b.parameter("fc1.bias", randn({64}, 2) * 0.1);
  const ir::ValueRef w2 = b.parameter("fc2.weight", randn({32, 64}, 3) * 0.2);
  const ir::ValueRef b2 = b.parameter("fc2.bias", randn({32}, 4) * 0.1);
  std::vector<InputContract> contract;
  const ir::ValueRef x = b.user_input("x", {s0, B::n(32)}, contract);
  const OpDef& transpose = find_op("aten::transpose.int");
  const OpDef& addmm = find_op("aten::addmm");
  const ir::Node* t1 =
      g.add_call(transpose, {w1, Argument(0), Argument(1)}, {B::transposed(32, 64)});
  const ir::Node* mm1 =
      g.add_call(addmm, {b1, x, t1->out(), Argument(1), Argument(1)}, {B::spec({s0, B::n(64)})});
  const ir::Node* h = g.add_call(find_op("aten::relu"), {mm1->out()}, {B::spec({s0, B::n(64)})});
  const ir::Node* t2 =
      g.add_call(transpose, {w2, Argument(0), Argument(1)}, {B::transposed(64, 32)});
  const ir::Node* mm2 = g.add_call(addmm, {b2, h->out(), t2->out(), Argument(1), Argument(1)},
                                   {B::spec({s0, B::n(32)})});
  const ir::Node* sum = g.add_call(find_op("aten::add.Tensor"), {mm2->out(), x, Argument(1)},
                                   {B::spec({s0, B::n(32)})});
  const ir::Node* y = g.add_call(find_op("aten::_softmax"), {sum->out(), Argument(1), false},
                                 {B::spec({s0, B::n(32)})});
  const sym::ExprPtr flat = sym::mul(B::n(32), s0);
  const ir::Node* flat_y = g.add_call(
      find_op("aten::view"), {y->out(), Argument(std::vector<Argument>{flat})}, {B::spec({flat})});
  b.outputs({y->out(), flat_y->out(), h->out()});
  return ExportedProgram(std::move(b.graph), std::move(b.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{2, 1024}, false}},
                         std::move(b.state));
}

}  // namespace xport::test_support
