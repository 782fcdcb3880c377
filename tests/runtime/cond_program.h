#pragma once
// A program with control flow built directly as a graph (no capture code), for tests that link
// only the runtime library: a cond on the sign of x's sum, whose branches scale x or add a bias
// they receive as an operand.
//
//   x: f32[s0, 8]    s0 (batch) in [2, 256]
//   pred = sum(x) > 0
//   y = cond(pred, true: x * 2, false: x + bias, [x, bias])
//   return (y,)

#include <memory>

#include "runtime/graph_building.h"

namespace xport::test_support {

inline ExportedProgram cond_program() {
  using ir::Argument;
  using B = GraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  const ir::TensorSpec xs = B::spec({s0, B::n(8)});
  const ir::TensorSpec bias_spec = B::spec({B::n(8)});
  // A branch: placeholders x and bias, one call, its result.
  auto branch = [&](const OpDef& op, bool uses_bias) {
    auto g = std::make_shared<ir::Graph>();
    const ir::Node* x = g->add_placeholder("x", xs);
    const ir::Node* bias = g->add_placeholder("bias", bias_spec);
    std::vector<Argument> args = {x->out()};
    if (uses_bias) {
      args.push_back(bias->out());
      args.emplace_back(1);
    } else {
      args.emplace_back(2.0);
    }
    const ir::Node* y = g->add_call(op, std::move(args), {xs});
    g->set_output({y->out()});
    return g;
  };
  GraphBuilder b;
  ir::Graph& g = b.graph;
  const ir::ValueRef bias = b.parameter("bias", randn({8}, 7));
  std::vector<InputContract> contract;
  const ir::ValueRef x = b.user_input("x", {s0, B::n(8)}, contract);
  const ir::Node* sum = g.add_call(find_op("aten::sum"), {x, Argument()}, {B::spec({})});
  const ir::Node* pred = g.add_call(find_op("aten::gt.Scalar"), {sum->out(), Argument(0.0)},
                                    {ir::TensorSpec::contiguous(DType::Bool, {})});
  const ir::Node* y = g.add_call(
      find_op("higher_order::cond"),
      {pred->out(), ir::SubgraphRef{"true_graph_0", branch(find_op("aten::mul.Scalar"), false)},
       ir::SubgraphRef{"false_graph_0", branch(find_op("aten::add.Tensor"), true)},
       std::vector<Argument>{x, bias}},
      {xs});
  b.outputs({y->out()});
  return ExportedProgram(std::move(b.graph), std::move(b.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "batch", sym::Range{2, 256}, false}},
                         std::move(b.state));
}

}  // namespace xport::test_support
