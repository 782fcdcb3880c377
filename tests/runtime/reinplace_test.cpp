// The runtime updates a buffer in place only when nothing reads its old value afterwards, and
// runs a program that updates buffers one call at a time.
#include <gtest/gtest.h>

#include <thread>

#include "graph_building.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::GraphBuilder;

// buf' = buf + x (the buffer's update), and y = buf * 2 with `old_read_after` placing that read
// of the old value after the update.
runtime::Program update_program(bool old_read_after) {
  GraphBuilder b;
  const Tensor initial = from_vector<float>({1, 2, 3}, {3});
  const ir::Node* buf = b.graph.add_placeholder("b_buf", GraphBuilder::spec({GraphBuilder::n(3)}));
  b.signature.inputs.push_back({InputSpec::Kind::Buffer, "b_buf", "buf"});
  b.state["buf"] = initial.clone();
  std::vector<InputContract> contract;
  const ir::ValueRef x = b.user_input("x", {GraphBuilder::n(3)}, contract);
  const OpDef& add = find_op("aten::add.Tensor");
  const OpDef& mul = find_op("aten::mul.Scalar");
  const ir::TensorSpec spec = GraphBuilder::spec({GraphBuilder::n(3)});
  auto doubled = [&] { return b.graph.add_call(mul, {buf->out(), 2.0}, {spec})->out(); };
  ir::ValueRef y;
  if (!old_read_after) y = doubled();
  const ir::ValueRef updated = b.graph.add_call(add, {buf->out(), x, int64_t{1}}, {spec})->out();
  if (old_read_after) y = doubled();
  b.graph.set_output({updated, y});
  b.signature.outputs = {{OutputSpec::Kind::BufferMutation, updated.node->name(), "buf"},
                         {OutputSpec::Kind::UserOutput, y.node->name(), ""}};
  return runtime::Program::from_exported(
      ExportedProgram(std::move(b.graph), b.signature, contract, {}, b.state));
}

// (y, what the runtime left in buf, the plan's stats) for one run.
std::tuple<Tensor, Tensor, runtime::PlanStats> run_update(bool old_read_after) {
  const runtime::Program rt = update_program(old_read_after);
  const Tensor input = from_vector<float>({10, 20, 30}, {3});
  const runtime::PlanStats stats = rt.plan_stats({input});
  const Tensor out = rt.run({input}).at(0);
  return {out, rt.program().state().at("buf"), stats};
}

TEST(Reinplace, AnUpdateNothingReadsAfterRunsInPlace) {
  const auto [y, buf, stats] = run_update(false);
  EXPECT_EQ(stats.buffers_updated_in_place, 1) << stats.str();
  EXPECT_TRUE(allclose(y, from_vector<float>({2, 4, 6}, {3})));
  EXPECT_TRUE(allclose(buf, from_vector<float>({11, 22, 33}, {3})));
}

TEST(Reinplace, AnUpdateWhoseOldValueIsReadLaterIsCopiedInstead) {
  const auto [y, buf, stats] = run_update(true);
  EXPECT_EQ(stats.buffers_updated_in_place, 0) << stats.str();
  EXPECT_TRUE(allclose(y, from_vector<float>({2, 4, 6}, {3})));
  EXPECT_TRUE(allclose(buf, from_vector<float>({11, 22, 33}, {3})));
}

TEST(Reinplace, CallsOnManyThreadsUpdateTheBufferOneAtATime) {
  const runtime::Program rt = update_program(false);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) rt.run({from_vector<float>({1, 1, 1}, {3})});
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(allclose(rt.program().state().at("buf"), from_vector<float>({101, 102, 103}, {3})));
}

}  // namespace
}  // namespace xport
