#pragma once
// Matrix products the runtime's load-time fusion runs on packed weights, and those it must not:
//
//   x: f32[s0, 16]    w: f32[8, 16] (a user input, not a constant)    s0 in [1, 256]
//   a = gelu(view(addmm(b1, x, t(w1)), [s0, 4, 8]), tanh)    through a view, GELU tanh
//   c = gelu(mm(x, slice(t(w2), 1, 0, 24)))                  no bias; a sliced view of a weight
//   d = relu(addmm(b1, x, t(w1), beta=2))                    beta != 1: left alone
//   e = mm(x, t(w))                                          weights not constant: left alone
//   return (a, c, d, e)

#include "runtime/graph_building.h"

namespace xport::test_support {

inline ExportedProgram linear_program() {
  using ir::Argument;
  using ir::TensorSpec;
  using B = GraphBuilder;
  const DType f32 = DType::Float32;
  const sym::ExprPtr s0 = sym::symbol("s0");
  auto n = B::n;
  auto spec = B::spec;
  auto transposed = B::transposed;

  GraphBuilder builder;
  ir::Graph& g = builder.graph;
  const ir::ValueRef w1 = builder.parameter("fc1.weight", randn({32, 16}, 1) * 0.3);
  const ir::ValueRef b1 = builder.parameter("fc1.bias", randn({32}, 2) * 0.1);
  const ir::ValueRef w2 = builder.parameter("fc2.weight", randn({32, 16}, 3) * 0.3);
  std::vector<InputContract> contract;
  const ir::ValueRef x = builder.user_input("x", {s0, n(16)}, contract);
  const ir::ValueRef w = builder.user_input("w", {n(8), n(16)}, contract);
  const OpDef& transpose = find_op("aten::transpose.int");
  const OpDef& addmm = find_op("aten::addmm");
  const OpDef& mm = find_op("aten::mm");
  const OpDef& gelu = find_op("aten::gelu");
  const ir::Node* t1 = g.add_call(transpose, {w1, Argument(0), Argument(1)}, {transposed(16, 32)});
  const ir::Node* mm1 =
      g.add_call(addmm, {b1, x, t1->out(), Argument(1), Argument(1)}, {spec({s0, n(32)})});
  const ir::Node* v1 = g.add_call(find_op("aten::view"),
                                  {mm1->out(), Argument(std::vector<Argument>{s0, n(4), n(8)})},
                                  {spec({s0, n(4), n(8)})});
  const ir::Node* a = g.add_call(gelu, {v1->out(), "tanh"}, {spec({s0, n(4), n(8)})});
  const ir::Node* t2 = g.add_call(transpose, {w2, Argument(0), Argument(1)}, {transposed(16, 32)});
  const ir::Node* s2 = g.add_call(find_op("aten::slice.Tensor"),
                                  {t2->out(), Argument(1), Argument(0), Argument(24), Argument(1)},
                                  {TensorSpec{f32, {n(16), n(24)}, {n(1), n(16)}, nullptr}});
  const ir::Node* mm2 = g.add_call(mm, {x, s2->out()}, {spec({s0, n(24)})});
  const ir::Node* c = g.add_call(gelu, {mm2->out(), "none"}, {spec({s0, n(24)})});
  const ir::Node* mm3 =
      g.add_call(addmm, {b1, x, t1->out(), Argument(2), Argument(1)}, {spec({s0, n(32)})});
  const ir::Node* d = g.add_call(find_op("aten::relu"), {mm3->out()}, {spec({s0, n(32)})});
  const ir::Node* t = g.add_call(transpose, {w, Argument(0), Argument(1)}, {transposed(16, 8)});
  const ir::Node* e = g.add_call(mm, {x, t->out()}, {spec({s0, n(8)})});
  builder.outputs({a->out(), c->out(), d->out(), e->out()});
  return ExportedProgram(std::move(builder.graph), std::move(builder.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{1, 256}, false}},
                         std::move(builder.state));
}

}  // namespace xport::test_support
