// `xport run` and `xport bench`: inputs by name from .npy files, outputs written as .npy equal to
// the program's own results, errors that name the input and list the contract, and benchmark
// text whose inputs the runtime checks against the contract.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "runtime/small_program.h"
#include "serde/round_trip.h"
#include "tools/xport/bench.h"
#include "tools/xport/program_inputs.h"
#include "tools/xport/run.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::TempFile;

// A directory in the temp directory, removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& stem) : file_(stem) {
    path_ = std::filesystem::path(file_.path()).replace_extension("");
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  TempFile file_;  // reserves a unique name
  std::filesystem::path path_;
};

// The error a call throws; fails the test when it throws none.
template <class F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return Error(ErrorKind::Internal, "");
}

std::vector<float> values(const Tensor& t) { return t.contiguous().to_vector<float>(); }

// small_program(): x f32[s0, 32] with s0 (batch) in [2, 1024]; outputs _softmax, view, relu.
class RunTool : public ::testing::Test {
 protected:
  void SetUp() override { save(test_support::small_program(), archive_.path()); }

  std::string run(tools::RunOptions options) {
    options.archive = archive_.path();
    std::ostringstream out;
    EXPECT_EQ(tools::run_run(options, out), 0);
    return out.str();
  }
  std::string bench(tools::BenchOptions options) {
    options.archive = archive_.path();
    std::ostringstream out;
    EXPECT_EQ(tools::run_bench(options, out), 0);
    return out.str();
  }

  TempFile archive_{"run-bench-test"};
  TempDir dir_{"run-bench-test-dir"};
};

// `xport run` is the runtime: its files equal the runtime's results bit for bit. The program's
// own run (the interpreter: unfused addmm through sgemm where the runtime packs the weights)
// takes other matrix-product kernels, whose sums differ by rounding on some instruction sets
// (AVX2), so it is compared within float32 rounding of these 32- and 64-term sums.
TEST_F(RunTool, WritesEachOutputAsNpyEqualToTheRuntimesRun) {
  const Tensor x = randn({5, 32}, 7);
  const std::string x_path = (dir_ / "x.npy").string();
  save_npy(x, x_path);
  tools::RunOptions options;
  options.inputs = {"x=" + x_path};
  options.out_dir = (dir_ / "out" / "nested").string();  // created
  options.threads = 1;
  const std::string text = run(options);

  const std::vector<Tensor> expected =
      runtime::Program::load(archive_.path(), runtime::Options{.num_threads = 1}).run({x});
  const std::vector<Tensor> interpreted = test_support::small_program().run({x});
  ASSERT_EQ(expected.size(), 3u);
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {"_softmax", "[5, 32]"}, {"view", "[160]"}, {"relu", "[5, 64]"}};
  std::string expected_text;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string path = (dir_ / "out" / "nested" / (outputs[i].first + ".npy")).string();
    expected_text += outputs[i].first + ": float32 " + outputs[i].second + " -> " + path + "\n";
    const Tensor written = load_npy(path);
    EXPECT_EQ(written.int_sizes(), expected[i].int_sizes()) << path;
    EXPECT_EQ(values(written), values(expected[i])) << path;  // bit for bit
    EXPECT_TRUE(allclose(written, interpreted[i], 1e-5, 1e-6)) << path;
  }
  EXPECT_EQ(text, expected_text);
}

TEST_F(RunTool, NamesAMissingInputAndListsTheContract) {
  const Error e = error_of([&] { run({}); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  const std::string message = e.what();
  EXPECT_NE(message.find("run: no --input for x (f32[s0, 32]); pass --input x=FILE.npy"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("\nthe program's inputs:\n  x: f32[s0, 32]\n"
                         "  s0: batch in [2, 1024]  (x.size(0))"),
            std::string::npos)
      << message;
}

TEST_F(RunTool, RefusesAnUnknownInputName) {
  tools::RunOptions options;
  options.inputs = {"y=" + (dir_ / "y.npy").string()};
  const Error e = error_of([&] { run(options); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  const std::string message = e.what();
  EXPECT_NE(message.find("run: --input y: the program has no input named 'y'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("\n  x: f32[s0, 32]"), std::string::npos) << message;
}

TEST_F(RunTool, PassesTheRuntimesContractErrorForAWrongShape) {
  const std::string x_path = (dir_ / "x.npy").string();
  save_npy(randn({5, 16}, 1), x_path);
  tools::RunOptions options;
  options.inputs = {"x=" + x_path};
  const Error e = error_of([&] { run(options); });
  EXPECT_EQ(std::string(e.what()),
            "x.size(1) = 16, but the program was exported with x.size(1) = 32 as a static dim; "
            "mark it dynamic with a Dim in dynamic_shapes to allow other sizes");
}

TEST_F(RunTool, NamesTheInputOfAnUnreadableNpyFile) {
  tools::RunOptions options;
  options.inputs = {"x=" + (dir_ / "missing.npy").string()};
  const Error e = error_of([&] { run(options); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  EXPECT_EQ(std::string(e.what()).rfind("run: input x: load_npy", 0), 0u) << e.what();
}

// A plain int input is specialised: it defaults to its value, a literal is checked by the runtime.
TEST(RunToolPlainInputs, TakesALiteralAndDefaultsToTheSpecialisedValue) {
  ExportOptions export_options;
  export_options.input_names = {"x", "k"};
  const ExportedProgram program =
      export_program([](const Tensor& x, int64_t k) { return x * static_cast<double>(k); },
                     {randn({2, 3}, 0), int64_t{3}}, export_options);
  TempFile archive("run-test-int");
  save(program, archive.path());
  TempDir dir("run-test-int-dir");
  const Tensor x = randn({2, 3}, 5);
  save_npy(x, (dir / "x.npy").string());
  tools::RunOptions options;
  options.archive = archive.path();
  options.out_dir = (dir / "out").string();
  for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"k=3"}}) {
    options.inputs = {"x=" + (dir / "x.npy").string()};
    options.inputs.insert(options.inputs.end(), extra.begin(), extra.end());
    std::ostringstream out;
    ASSERT_EQ(tools::run_run(options, out), 0);
    ASSERT_EQ(program.signature().outputs.size(), 1u);
    const Tensor y =
        load_npy((dir / "out" / (program.signature().outputs[0].name + ".npy")).string());
    EXPECT_EQ(values(y), values(x * 3.0));
  }
  std::ostringstream out;
  options.inputs = {"x=" + (dir / "x.npy").string(), "k=4"};
  EXPECT_NE(std::string(error_of([&] { tools::run_run(options, out); }).what())
                .find("input k: the program was specialised to 3, got 4"),
            std::string::npos);
  options.inputs = {"x=" + (dir / "x.npy").string(), "k=three"};
  EXPECT_NE(std::string(error_of([&] { tools::run_run(options, out); }).what())
                .find("run: input k is an int; 'three' is not one"),
            std::string::npos);
}

TEST_F(RunTool, BenchPrintsTimingsMemoryAndThePlan) {
  tools::BenchOptions options;
  options.shapes = {"x=4x32"};
  options.runs = 5;
  options.warmup = 1;
  options.threads = 1;
  const std::string text = bench(options);
  const runtime::Program program = runtime::Program::from_exported(test_support::small_program());
  const std::string plan = program.plan_stats({randn({4, 32}, 0)}).str();
  for (const std::string& field :
       {"archive:     " + archive_.path() + "\n", std::string("threads:     1\n"),
        "kernels:     " + runtime::kernel_isa() + "\n",
        std::string("inputs:\n  x: float32 [4, 32], standard normal\n"),
        std::string("\nload:        "), std::string("\nfirst run:   "),
        std::string("\nlatency:     median "), std::string(", p90 "), std::string(", p99 "),
        std::string(" over 5 runs (after 1 warm-up)\n"), std::string("\nthroughput:  "),
        std::string(" runs/s"), std::string("\npeak RSS:    "), std::string(" MB\n"),
        "\nplan:        " + plan + "\n"}) {
    EXPECT_NE(text.find(field), std::string::npos) << field << "\nnot in:\n" << text;
  }
}

TEST(BenchTimes, PrintMicrosecondsBelowAMillisecond) {
  EXPECT_EQ(tools::ms_str(0.0021), "2.10 us");
  EXPECT_EQ(tools::ms_str(0.0975), "97.5 us");
  EXPECT_EQ(tools::ms_str(2.5), "2.500 ms");
  EXPECT_EQ(tools::ms_str(1500), "1.50 s");
}

TEST_F(RunTool, BenchRefusesAShapeOutsideTheContractWithTheRuntimesError) {
  const runtime::Program program = runtime::Program::from_exported(test_support::small_program());
  for (const auto& [shape, sizes] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"2000x32", {2000, 32}}, {"4x16", {4, 16}}, {"4x32x1", {4, 32, 1}}}) {
    const std::string runtime_error = error_of([&] { program.run({randn(sizes, 0)}); }).what();
    tools::BenchOptions options;
    options.shapes = {"x=" + shape};
    const Error e = error_of([&] { bench(options); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_EQ(std::string(e.what()), runtime_error);
  }
  EXPECT_NE(std::string(error_of([&] { bench({}); }).what())
                .find("bench: no --shape for x (f32[s0, 32] has dynamic dims); pass --shape "
                      "x=AxBxC inside its contract"),
            std::string::npos);
  tools::BenchOptions malformed;
  malformed.shapes = {"x=4xq"};
  EXPECT_NE(std::string(error_of([&] { bench(malformed); }).what())
                .find("bench: --shape x=4xq: 'q' is not a size"),
            std::string::npos);
}

// A static contract needs no --shape; integer inputs are drawn from [0, 100), valid indices for
// an embedding of 100 rows.
TEST(BenchToolStatic, DefaultsToTheStaticShapeWithIntegersInRange) {
  auto embedding = std::make_shared<nn::Embedding>(100, 8);
  embedding->eval();
  ExportOptions export_options;
  export_options.input_names = {"ids"};
  const ExportedProgram program = export_program(
      *embedding, [&](const Tensor& ids) { return embedding->forward(ids); },
      {from_vector(std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {2, 5})}, export_options);
  TempFile archive("bench-test-static");
  save(program, archive.path());
  tools::BenchOptions options;
  options.archive = archive.path();
  options.runs = 3;
  std::ostringstream out;
  ASSERT_EQ(tools::run_bench(options, out), 0);
  EXPECT_NE(out.str().find("inputs:\n  ids: int64 [2, 5], uniform ints in [0, 100)\n"),
            std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace xport
