#include "ir/passes/memory_planning.h"

#include <gtest/gtest.h>

#include <random>

#include "xport/core/error.h"

namespace xport::ir::passes {
namespace {

// Every pair of buffers live at the same step occupies disjoint bytes; offsets are aligned and
// inside the arena.
void expect_valid(const std::vector<BufferLifetime>& buffers, const MemoryPlan& plan) {
  ASSERT_EQ(plan.offsets.size(), buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % 64, 0);
    EXPECT_LE(plan.offsets[i] + buffers[i].bytes, plan.arena_bytes);
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const bool live_together =
          buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last;
      const bool bytes_overlap = plan.offsets[i] < plan.offsets[j] + buffers[j].bytes &&
                                 plan.offsets[j] < plan.offsets[i] + buffers[i].bytes;
      EXPECT_FALSE(live_together && bytes_overlap && buffers[i].bytes > 0 && buffers[j].bytes > 0)
          << "buffers " << i << " and " << j;
    }
  }
  EXPECT_GE(plan.arena_bytes, plan.lower_bound_bytes);
}

TEST(MemoryPlan, ChainReusesMemoryAndMeetsTheLowerBound) {
  // a -> b -> c -> d: each step reads the previous buffer and writes the next.
  const std::vector<BufferLifetime> chain = {{100, 0, 1}, {300, 1, 2}, {100, 2, 3}, {300, 3, 4}};
  const MemoryPlan plan = plan_memory(chain);
  expect_valid(chain, plan);
  EXPECT_EQ(plan.lower_bound_bytes, 320 + 128);
  EXPECT_EQ(plan.arena_bytes, plan.lower_bound_bytes);
  EXPECT_EQ(plan.offsets[1], plan.offsets[3]);  // the two large buffers share bytes
}

TEST(MemoryPlan, DisjointLifetimesShareOffsetZero) {
  const std::vector<BufferLifetime> buffers = {{64, 0, 0}, {64, 1, 1}, {64, 2, 2}};
  const MemoryPlan plan = plan_memory(buffers);
  EXPECT_EQ(plan.offsets, (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(plan.arena_bytes, 64);
}

TEST(MemoryPlan, EmptyBuffersTakeNoSpace) {
  const MemoryPlan plan = plan_memory({{0, 0, 5}, {128, 1, 2}});
  EXPECT_EQ(plan.arena_bytes, 128);
  EXPECT_EQ(plan_memory({}).arena_bytes, 0);
}

TEST(MemoryPlan, RandomProgramsArePlacedSafelyAndNearTheBound) {
  std::mt19937_64 rng(7);
  double worst = 1.0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferLifetime> buffers;
    const int steps = 60;
    for (int s = 0; s < steps; ++s) {  // one output per step, read by the next few steps
      const int64_t last = std::min<int64_t>(steps - 1, s + 1 + static_cast<int64_t>(rng() % 6));
      buffers.push_back({static_cast<int64_t>(64 + rng() % 100000), s, last});
    }
    const MemoryPlan plan = plan_memory(buffers);
    expect_valid(buffers, plan);
    worst = std::max(
        worst, static_cast<double>(plan.arena_bytes) / static_cast<double>(plan.lower_bound_bytes));
  }
  // Greedy best-fit is not optimal on adversarial lifetimes, but stays close on these.
  EXPECT_LT(worst, 1.5);
  RecordProperty("worst_ratio", std::to_string(worst));
}

TEST(MemoryPlan, RefusesMalformedLifetimes) {
  EXPECT_THROW(plan_memory({{-1, 0, 0}}), Error);
  EXPECT_THROW(plan_memory({{8, 3, 2}}), Error);
}

}  // namespace
}  // namespace xport::ir::passes
