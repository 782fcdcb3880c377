#pragma once
// Chains of elementwise ops the runtime runs in one pass over memory, and those it must not:
//
//   x, y: f32[s0, 16]    s0 in [1, 4096]    b: a [1, 16] parameter
//   e = sigmoid(x * y + 2 * x) * 3     a chain of four, reading x twice
//   h = neg(relu(x + b))               the add broadcasts b: only relu and neg chain
//   k = tanh(x); m = k * k             k is read twice by one op: no chain
//   return (e, h, m)

#include "runtime/graph_building.h"

namespace xport::test_support {

inline ExportedProgram pointwise_program() {
  using ir::Argument;
  using B = GraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  const ir::TensorSpec rows = B::spec({s0, B::n(16)});
  GraphBuilder builder;
  ir::Graph& g = builder.graph;
  const ir::ValueRef b = builder.parameter("bias", randn({1, 16}, 1));
  std::vector<InputContract> contract;
  const ir::ValueRef x = builder.user_input("x", {s0, B::n(16)}, contract);
  const ir::ValueRef y = builder.user_input("y", {s0, B::n(16)}, contract);
  auto call = [&](const char* op, std::vector<Argument> args) {
    return g.add_call(find_op(op), std::move(args), {rows})->out();
  };
  const ir::ValueRef xy = call("aten::mul.Tensor", {x, y});
  const ir::ValueRef sum = call("aten::add.Tensor", {xy, x, Argument(2)});
  const ir::ValueRef sig = call("aten::sigmoid", {sum});
  const ir::ValueRef e = call("aten::mul.Scalar", {sig, 3.0});
  const ir::ValueRef f = call("aten::add.Tensor", {x, b, Argument(1)});
  const ir::ValueRef h = call("aten::neg", {call("aten::relu", {f})});
  const ir::ValueRef k = call("aten::tanh", {x});
  const ir::ValueRef m = call("aten::mul.Tensor", {k, k});
  builder.outputs({e, h, m});
  return ExportedProgram(std::move(builder.graph), std::move(builder.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{1, 4096}, false}},
                         std::move(builder.state));
}

}  // namespace xport::test_support
