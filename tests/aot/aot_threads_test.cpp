// Compiled models shared by many threads: one library loaded once, its model run from threads
// at once, through runtime::Program's C++ entrance and through the C ABI. Built in the
// ThreadSanitizer configuration too (with the library compiled under TSan as well), where any
// race in the library's own sharing (its shapes, frame pools, packed weights) fails the test.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cond_program.h"
#include "runtime/small_program.h"
#include "runtime/training_ir_program.h"
#include "serde/round_trip.h"
#include "xport/aot/aot.h"
#include "xport/runtime.h"

namespace xport {
namespace {

namespace fs = std::filesystem;
using test_support::bitwise_equal;

// libgomp is not instrumented: under TSan its barriers are invisible, so kernels stay on the
// calling thread and TSan checks the threads that share the model.
#if defined(__SANITIZE_THREAD__)
constexpr int kKernelThreads = 1;
#else
constexpr int kKernelThreads = 2;
#endif

class AotThreadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Precompiled headers in the build tree, not the user's cache.
    setenv("XPORT_AOT_CACHE", (fs::current_path() / "aot-cache").c_str(), 0);
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("xport-aot-threads-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Compiles `program`, then runs each input set from `threads` threads at once, `rounds` times
  // each, through both entrances; every result must equal, bit for bit, the library's result on
  // one thread, which must equal the runtime's on the same archive.
  void check_shared(const ExportedProgram& program, const std::string& name,
                    const std::vector<std::vector<Value>>& input_sets, int threads = 6,
                    int rounds = 12) {
    const aot::CompileReport report = aot::compile(program, (dir_ / (name + ".so")).string());
    const runtime::Options options{.num_threads = kKernelThreads};
    const runtime::Program reference = runtime::Program::load(report.archive_path, options);
    const runtime::Program compiled = runtime::Program::load(report.so_path, options);
    setenv("XPORT_MODEL_C_ABI", "1", 1);
    const runtime::Program c_abi = runtime::Program::load(report.so_path, options);
    unsetenv("XPORT_MODEL_C_ABI");
    std::vector<std::vector<Tensor>> expected;
    for (const std::vector<Value>& inputs : input_sets) {
      expected.push_back(compiled.run_values(inputs));
      const std::vector<Tensor> want = reference.run_values(inputs);
      ASSERT_EQ(expected.back().size(), want.size()) << name;
      for (size_t o = 0; o < want.size(); ++o) {
        EXPECT_TRUE(allclose(expected.back()[o], want[o], 1e-5, 1e-6)) << name << " output " << o;
      }
    }
    for (const runtime::Program* library : {&compiled, &c_abi}) {
      std::atomic<int> mismatches{0}, failures{0};
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          for (int r = 0; r < rounds; ++r) {
            const size_t which = static_cast<size_t>(t + r) % input_sets.size();
            try {
              const std::vector<Tensor> got = library->run_values(input_sets[which]);
              for (size_t o = 0; o < got.size(); ++o) {
                if (!bitwise_equal(got[o].contiguous(), expected[which][o].contiguous())) {
                  ++mismatches;
                }
              }
            } catch (const std::exception&) {
              ++failures;
            }
          }
        });
      }
      for (std::thread& t : pool) t.join();
      const std::string how = library == &compiled ? "C++ entrance" : "C ABI";
      EXPECT_EQ(mismatches.load(), 0) << name << " through the " << how;
      EXPECT_EQ(failures.load(), 0) << name << " through the " << how;
    }
  }

  fs::path dir_;
};

TEST_F(AotThreadsTest, ThreadsShareADynamicModelAtManyShapes) {
  std::vector<std::vector<Value>> inputs;
  for (int64_t batch : {2, 3, 7, 16, 33}) {
    inputs.push_back({randn({batch, 32}, static_cast<uint64_t>(batch))});
  }
  check_shared(test_support::small_program(), "small", inputs);
}

TEST_F(AotThreadsTest, ThreadsSharePackedConvolutionsAndMatrixProducts) {
  std::vector<std::vector<Value>> inputs;
  for (int64_t batch : {1, 4, 9}) {
    inputs.push_back({randn({1, batch, 16}, static_cast<uint64_t>(batch)),
                      randn({batch, 3, 6, 6}, static_cast<uint64_t>(50 + batch))});
  }
  check_shared(test_support::training_ir_program(), "training_ir", inputs);
}

TEST_F(AotThreadsTest, ThreadsShareGeneratedSubgraphs) {
  std::vector<std::vector<Value>> inputs;
  for (int64_t batch : {2, 5, 16}) {
    for (double sign : {1.0, -1.0}) {
      inputs.push_back({ones({batch, 8}) * sign + randn({batch, 8}, 7) * 0.1});
    }
  }
  check_shared(test_support::cond_program(), "cond", inputs);
}

}  // namespace
}  // namespace xport
