// The runtime library alone (this test links nothing else): one Program run from many threads,
// archives loaded without capture code, and the contract's errors.

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "runtime/cond_program.h"
#include "runtime/small_program.h"
#include "serde/round_trip.h"

namespace xport::runtime {
namespace {

// ThreadSanitizer does not see OpenMP's (libgomp's) synchronisation, so under it kernels run on
// the calling thread only; the runtime's own sharing (plans, arenas, weights) is what it checks.
#if defined(__SANITIZE_THREAD__)
constexpr int kKernelThreads = 1;
#else
constexpr int kKernelThreads = 2;
#endif

using test_support::bitwise_equal;

Program small_runtime_program() {
  return Program::from_exported(test_support::small_program(),
                                Options{.num_threads = kKernelThreads});
}

// The runtime packs the linear layers' weights (a GEMV kernel for a few rows, oneDNN's matmul
// for more) where the program's own run calls sgemm: sums of 32 and 64 products that round
// differently on some instruction sets (AVX2), so within float32 rounding of such sums.
TEST(RuntimeProgram, MatchesTheExportedProgram) {
  const Program program = small_runtime_program();
  for (int64_t batch : {2, 5, 64}) {
    const Tensor x = randn({batch, 32}, static_cast<uint64_t>(batch));
    const std::vector<Tensor> got = program.run({x});
    const std::vector<Tensor> want = program.program().run({x});
    ASSERT_EQ(got.size(), 3u);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(allclose(got[i], want[i], 1e-5, 1e-6)) << "output " << i << " batch " << batch;
    }
    EXPECT_TRUE(bitwise_equal(got[1].view({batch, 32}), got[0]));
  }
  EXPECT_EQ(program.cached_plans(), 3u);
}

TEST(RuntimeProgram, ThreadsShareOneProgramWithIdenticalResults) {
  const Program program = small_runtime_program();
  const std::vector<int64_t> batches = {2, 3, 7, 16, 33};
  std::vector<Tensor> inputs;
  std::vector<std::vector<Tensor>> expected;
  for (int64_t b : batches) {
    inputs.push_back(randn({b, 32}, static_cast<uint64_t>(100 + b)));
    expected.push_back(program.run({inputs.back()}));
  }
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 100; ++r) {
        const size_t which = static_cast<size_t>(t + r) % batches.size();
        try {
          const std::vector<Tensor> got = program.run({inputs[which]});
          for (size_t o = 0; o < got.size(); ++o) {
            if (!bitwise_equal(got[o], expected[which][o])) ++mismatches;
          }
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(program.cached_plans(), batches.size());
}

// A cond's subgraphs run on their own plans and arenas, from many threads at once.
TEST(RuntimeProgram, ThreadsShareAProgramWithControlFlow) {
  const Program program =
      Program::from_exported(test_support::cond_program(), Options{.num_threads = kKernelThreads});
  ASSERT_TRUE(program.plan_stats({ones({4, 8})}).planned);
  std::vector<Tensor> inputs;
  std::vector<Tensor> expected;
  for (int64_t b : {2, 5, 9, 16}) {
    for (double sign : {1.0, -1.0}) {
      inputs.push_back(ones({b, 8}) * sign + randn({b, 8}, static_cast<uint64_t>(b)) * 0.1);
      expected.push_back(program.program().run({inputs.back()}).at(0));
    }
  }
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 60; ++r) {
        const size_t which = static_cast<size_t>(t + r) % inputs.size();
        try {
          if (!bitwise_equal(program.run({inputs[which]}).at(0), expected[which])) ++mismatches;
        } catch (const std::exception&) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(failures.load(), 0);
}

TEST(RuntimeProgram, OutputsNeverAliasTheArena) {
  const Program program = small_runtime_program();
  const std::vector<Tensor> first = program.run({randn({4, 32}, 1)});
  const std::vector<Tensor> copy = {first[0].clone(), first[2].clone()};
  const std::vector<Tensor> second = program.run({randn({4, 32}, 2)});
  EXPECT_TRUE(bitwise_equal(first[0], copy[0]));
  EXPECT_TRUE(bitwise_equal(first[2], copy[1]));
  EXPECT_NE(first[0].raw_data(), second[0].raw_data());
  EXPECT_FALSE(bitwise_equal(first[0], second[0]));
  // The flat view is a view of the first output, not of planned memory.
  EXPECT_EQ(first[1].storage(), first[0].storage());
}

TEST(RuntimeProgram, PlansMemoryWithinTheBound) {
  const Program program = small_runtime_program();
  const PlanStats stats = program.plan_stats({randn({256, 32}, 1)});
  ASSERT_TRUE(stats.planned) << stats.unplanned_reason;
  // Fusion folds relu into the first product: two products on packed weights, add, softmax.
  // The two transposed weights are folded at load: one view (the flat output) is left.
  EXPECT_EQ(stats.kernel_steps, 4);
  EXPECT_EQ(stats.view_steps, 1);
  // The second product and add are live together; relu is an output, so not in the arena.
  EXPECT_EQ(stats.arena_values, 2);
  EXPECT_EQ(stats.lower_bound_bytes, 2 * 256 * 32 * 4);
  EXPECT_LE(static_cast<double>(stats.arena_bytes),
            1.1 * static_cast<double>(stats.lower_bound_bytes));
  EXPECT_EQ(stats.output_bytes, 256 * 32 * 4 + 256 * 64 * 4);
}

TEST(RuntimeProgram, EvictsTheOldestPlan) {
  const Program program = Program::from_exported(test_support::small_program(),
                                                 Options{.num_threads = 1, .max_cached_plans = 2});
  for (int64_t b : {2, 3, 4, 2}) program.run({randn({b, 32}, 1)});
  EXPECT_EQ(program.cached_plans(), 2u);
  EXPECT_THROW(Program::from_exported(test_support::small_program(), Options{.num_threads = -1}),
               Error);
}

TEST(RuntimeProgram, InputErrorsMatchTheExportedProgram) {
  const Program program = small_runtime_program();
  const std::vector<std::vector<Tensor>> bad = {
      {},                                      // arity
      {randn({4, 32}, 1).to(DType::Float64)},  // dtype
      {randn({4, 32, 1}, 1)},                  // rank
      {randn({4, 31}, 1)},                     // static dim
      {randn({1, 32}, 1)},                     // below the range of s0
      {randn({1025, 32}, 1)},                  // above it
  };
  for (const std::vector<Tensor>& inputs : bad) {
    std::string runtime_message, exported_message;
    try {
      program.run(inputs);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
      runtime_message = e.what();
    }
    try {
      program.program().run(std::vector<Value>(inputs.begin(), inputs.end()));
    } catch (const Error& e) {
      exported_message = e.what();
    }
    EXPECT_FALSE(runtime_message.empty());
    EXPECT_EQ(runtime_message, exported_message);
  }
}

TEST(RuntimeProgram, NonContiguousInputsRunAsTheirValues) {
  const Program program = small_runtime_program();
  const Tensor wide = randn({32, 6}, 9);
  const Tensor x = wide.t();  // [6, 32], strides [1, 6]
  ASSERT_FALSE(x.is_contiguous());
  const std::vector<Tensor> got = program.run({x});
  const std::vector<Tensor> want = program.run({x.contiguous()});
  EXPECT_TRUE(bitwise_equal(got[0], want[0]));
  const Tensor rows = randn({10, 32}, 3).slice(0, 4, 10);  // contiguous, storage offset 128
  EXPECT_TRUE(bitwise_equal(program.run({rows})[0], program.run({rows.clone()})[0]));
}

TEST(RuntimeProgram, LoadsAnArchiveWithoutCaptureCode) {
  const test_support::TempFile file("small.pt2");
  save(test_support::small_program(), file.path());
  const Program program = Program::load(file.path(), Options{.num_threads = kKernelThreads});
  const Tensor x = randn({3, 32}, 5);
  const std::vector<Tensor> got = program.run({x});
  const std::vector<Tensor> want = small_runtime_program().run({x});
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(bitwise_equal(got[i], want[i]));
}

}  // namespace
}  // namespace xport::runtime
