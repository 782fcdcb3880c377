// Ops the runtime has no kernel for: one with a decomposition runs as a planned step (its
// decomposition, eagerly, its result laid out as planned); one with nothing to run it fails when
// reached, naming the op, as eager execution does. No graph falls back to the interpreter.

#include <gtest/gtest.h>

#include "runtime/graph_building.h"
#include "serde/round_trip.h"
#include "xport/ops/functions.h"
#include "xport/ops/library.h"
#include "xport/runtime.h"

namespace xport::runtime {
namespace {

using test_support::GraphBuilder;

// rt_decomp::scaled_tanh(x) = tanh(x) * 3: a meta function and a decomposition, no kernel.
// rt_decomp::nothing(x): a meta function only.
void register_ops() {
  static const bool registered = [] {
    Library("rt_decomp")
        .define("scaled_tanh(Tensor x) -> Tensor")
        .impl_meta("scaled_tanh",
                   [](const std::vector<Value>& a) { return Value(empty_like(a[0].to_tensor())); })
        .impl_decomposition("scaled_tanh",
                            [](const std::vector<Value>& a) {
                              return Value(tanh(a[0].to_tensor()) * 3.0);
                            })
        .define("nothing(Tensor x) -> Tensor")
        .impl_meta("nothing",
                   [](const std::vector<Value>& a) { return Value(empty_like(a[0].to_tensor())); });
    return true;
  }();
  (void)registered;
}

//   x: f32[s0, 8]    y = relu(OP(x * 2)) + 1
ExportedProgram program_calling(const std::string& op) {
  using ir::Argument;
  using B = GraphBuilder;
  const sym::ExprPtr s0 = sym::symbol("s0");
  GraphBuilder b;
  ir::Graph& g = b.graph;
  std::vector<InputContract> contract;
  const ir::TensorSpec rows = B::spec({s0, B::n(8)});
  const ir::ValueRef x = b.user_input("x", {s0, B::n(8)}, contract);
  const ir::Node* twice = g.add_call(find_op("aten::mul.Scalar"), {x, Argument(2.0)}, {rows});
  const ir::Node* called = g.add_call(find_op(op), {twice->out()}, {rows});
  const ir::Node* relu = g.add_call(find_op("aten::relu"), {called->out()}, {rows});
  const ir::Node* y =
      g.add_call(find_op("aten::add.Scalar"), {relu->out(), Argument(1.0), Argument(1)}, {rows});
  b.outputs({y->out()});
  return ExportedProgram(std::move(b.graph), std::move(b.signature), contract,
                         {SymbolSpec{"s0", "x.size(0)", "rows", sym::Range{1, 64}, false}},
                         std::move(b.state));
}

// Optimized (the default), the call becomes the calls its decomposition makes (tanh, mul), each
// a kernel step; unoptimized, it is one step that runs the decomposition. Both give the eager
// result bit for bit.
TEST(DecompositionStep, AnOpWithOnlyADecompositionRunsPlanned) {
  register_ops();
  for (const bool fuse : {true, false}) {
    Options options;
    options.fuse = fuse;
    const Program program =
        Program::from_exported(program_calling("rt_decomp::scaled_tanh"), options);
    for (int64_t rows : {1, 5, 64}) {
      const Tensor x = randn({rows, 8}, static_cast<uint64_t>(rows));
      const PlanStats stats = program.plan_stats({x});
      EXPECT_TRUE(stats.planned) << stats.unplanned_reason;
      EXPECT_EQ(stats.composite_steps, fuse ? 0 : 1) << "rows " << rows;
      // Fused: x * 2, tanh, * 3, then relu and + 1 chained in one pass; unfused: x * 2, the
      // decomposition's step, relu, + 1.
      EXPECT_EQ(stats.kernel_steps, 4) << "rows " << rows;
      EXPECT_EQ(stats.run_time_steps, 0) << "rows " << rows;
      const std::vector<Tensor> got = program.run({x});
      ASSERT_EQ(got.size(), 1u);
      EXPECT_TRUE(allclose(got[0], relu(tanh(x * 2.0) * 3.0) + 1.0, 1e-6, 1e-6))
          << "rows " << rows;
      EXPECT_TRUE(test_support::bitwise_equal(got[0], program.program().run({x}).at(0)));
    }
  }
}

TEST(DecompositionStep, AnOpNothingCanRunFailsWhenReachedNamingIt) {
  register_ops();
  const Program program = Program::from_exported(program_calling("rt_decomp::nothing"));
  const Tensor x = randn({3, 8}, 0);
  const PlanStats stats = program.plan_stats({x});
  EXPECT_TRUE(stats.planned) << stats.unplanned_reason;
  EXPECT_GE(stats.run_time_steps, 1);  // it, and steps reading what it makes
  try {
    program.run({x});
    FAIL() << "an op with no kernel and no decomposition ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::UnsupportedOp) << e.what();
    EXPECT_NE(std::string(e.what()).find("rt_decomp::nothing"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace xport::runtime
