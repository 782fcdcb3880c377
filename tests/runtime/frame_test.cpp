// The runtime's frames: each run leases one (the arena, the tensors that stay in it, each
// kernel step's bound arguments) and fills in only what it is given or makes. These check what
// a kept binding could get wrong: a run seeing another run's inputs, weights or results, the
// frame keeping the caller's tensors alive, and a kernel that replaces its output.

#include <gtest/gtest.h>

#include "runtime/compiled_graph.h"
#include "runtime/execution_plan.h"
#include "runtime/small_program.h"
#include "serde/round_trip.h"

namespace xport::runtime {
namespace {

using test_support::GraphBuilder;

TEST(RuntimeFrame, EachRunSeesItsOwnInputsWhenFramesAreReused) {
  const Program program = Program::from_exported(test_support::small_program());
  // Sequential runs reuse one frame per shape; shapes interleave. Each must equal, bit for bit,
  // the first run of a fresh Program (same kernels, frames never reused).
  for (int round = 0; round < 3; ++round) {
    for (int64_t batch : {2, 9, 2, 33}) {
      const Tensor x = randn({batch, 32}, static_cast<uint64_t>(10 * round + batch));
      const std::vector<Tensor> got = program.run({x});
      const std::vector<Tensor> want =
          Program::from_exported(test_support::small_program()).run({x});
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_TRUE(test_support::bitwise_equal(got[i], want[i]))
            << "output " << i << ", batch " << batch << ", round " << round;
      }
    }
  }
}

TEST(RuntimeFrame, KeepsNoTensorOfTheCallerAfterARun) {
  const Program program = Program::from_exported(test_support::small_program());
  const Tensor x = randn({4, 32}, 1);
  std::vector<Tensor> results = program.run({x});
  // `h` (result 2) is also read by a later step: the frame's binding of that step is dropped.
  EXPECT_EQ(results[2].impl_ptr().use_count(), 1);
  EXPECT_EQ(results[2].storage().use_count(), 1);
  // `y` and its view (results 0 and 1) share one storage and nothing else does.
  EXPECT_EQ(results[0].storage().use_count(), 2);
  results.clear();
  EXPECT_EQ(x.impl_ptr().use_count(), 1);
  EXPECT_EQ(x.storage().use_count(), 1);
}

// The small program's graph planned and run directly, with placeholders the test chooses.
struct PlannedSmallProgram {
  ExportedProgram program = test_support::small_program();
  CompiledGraph graph = compile_graph(program.graph());
  std::unordered_map<sym::ExprPtr, int64_t> symbols = {{sym::symbol("s0"), 3}};

  std::vector<Tensor> placeholders(uint64_t seed, const Tensor& x) const {
    return {randn({64, 32}, seed), randn({64}, seed + 1), randn({32, 64}, seed + 2),
            randn({32}, seed + 3), x};
  }
};

TEST(RuntimeFrame, OtherWeightsBindTheFrameAnew) {
  const PlannedSmallProgram p;
  const Tensor x = randn({3, 32}, 7);
  const std::unique_ptr<ExecutionPlan> plan =
      make_plan(p.graph, p.placeholders(1, x), {false, false, false, false, true}, p.symbols);
  // One frame serves every run here (one at a time); the weights change between runs.
  for (uint64_t seed : {1, 20, 20, 1}) {
    const std::vector<Tensor> placeholders = p.placeholders(seed, x);
    const std::vector<Tensor> got = execute(*plan, p.graph, placeholders);
    const std::vector<Tensor> want = ir::interpret(p.program.graph(), placeholders, p.symbols);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(allclose(got[i], want[i], 1e-5, 1e-6)) << "output " << i << ", seed " << seed;
    }
  }
}

TEST(RuntimeFrame, AKernelThatReplacesItsOutputHasItCopiedWhereThePlanPutIt) {
  // Its kernel assigns a new tensor to its output instead of writing into the one it is given.
  register_op({
      .schema = "frame_test::twice(Tensor self) -> Tensor",
      .meta = [](const OpArgs& a) { return std::vector<TensorMeta>{a.tensor("self").meta()}; },
      .kernel = {.fn = [](const OpArgs& a, std::vector<Tensor>& outs) {
        outs[0] = a.tensor("self") * 2.0;
      }},
  });
  GraphBuilder b;
  std::vector<InputContract> contract;
  const ir::ValueRef x = b.user_input("x", {GraphBuilder::n(4), GraphBuilder::n(8)}, contract);
  const auto spec = GraphBuilder::spec({GraphBuilder::n(4), GraphBuilder::n(8)});
  // twice's result lives in the arena: relu reads it there.
  const ir::Node* twice = b.graph.add_call(find_op("frame_test::twice"), {x}, {spec});
  const ir::Node* relu = b.graph.add_call(find_op("aten::relu"), {twice->out()}, {spec});
  b.outputs({relu->out()});
  const Program program = Program::from_exported(
      ExportedProgram(std::move(b.graph), std::move(b.signature), contract, {}, {}));
  for (uint64_t seed : {1, 2}) {
    const Tensor input = randn({4, 8}, seed);
    EXPECT_TRUE(allclose(program.run({input})[0], (input * 2.0).relu())) << "seed " << seed;
  }
}

}  // namespace
}  // namespace xport::runtime
