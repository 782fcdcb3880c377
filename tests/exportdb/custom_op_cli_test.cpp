// The custom-op story end to end, as a backend author lives it: the ExportDB case
// replace_convolution (accel::conv2d put in place of aten::convolution by a pass) runs its
// convolutions through the op's kernel in the runtime; saved, the archive is refused by an
// xport tool that lacks the op, with the way to provide it, and runs under
// `xport run --ops libxport_example_ops.so` to the program's own result.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "examples/custom_ops/accel_ops.h"
#include "serde/round_trip.h"
#include "xport/exportdb/exportdb.h"
#include "xport/xport.h"

namespace xport {
namespace {

struct Command {
  int status = -1;
  std::string output;  // stdout and stderr
};

Command run_command(const std::string& command) {
  Command result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

class CustomOpBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    const exportdb::Case* c = exportdb::find_case("replace_convolution");
    ASSERT_NE(c, nullptr);
    program_.emplace(exportdb::export_case(*c));
  }
  std::optional<ExportedProgram> program_;
};

TEST_F(CustomOpBackend, ThePassLeavesNoConvolutionAndTheRuntimeRunsTheOpsKernel) {
  const ExportedProgram& p = *program_;
  EXPECT_TRUE(p.graph().find_nodes("aten::convolution").empty()) << p.to_string();
  ASSERT_EQ(p.graph().find_nodes("accel::conv2d").size(), 1u) << p.to_string();
  test_support::TempFile file("accel");
  save(p, file.path());
  const runtime::Program rt = runtime::Program::load(file.path());
  const Tensor x = randn({3, 3, 8, 8}, 4);
  const int64_t before = accel::conv2d_calls();
  const std::vector<Tensor> got = rt.run({x});
  EXPECT_EQ(accel::conv2d_calls(), before + 1);
  EXPECT_TRUE(allclose(got[0], p.run({x})[0], 1e-5, 1e-6));
}

TEST_F(CustomOpBackend, TheToolRefusesTheArchiveWithoutTheOpAndRunsItWithOps) {
  const ExportedProgram& p = *program_;
  test_support::TempFile file("accel-cli");
  save(p, file.path());
  const std::filesystem::path dir = std::filesystem::path(file.path()).replace_extension("");
  std::filesystem::create_directories(dir);
  const Tensor x = randn({2, 3, 8, 8}, 5);
  save_npy(x, (dir / "x.npy").string());
  std::string input_name;
  for (const InputSpec& in : p.signature().inputs) {
    if (in.kind == InputSpec::Kind::UserInput) input_name = in.name;
  }
  const std::string run = std::string(XPORT_CLI) + " run " + file.path() + " --input " +
                          input_name + "=" + (dir / "x.npy").string() + " --out " + dir.string();

  const Command without = run_command(run);
  EXPECT_NE(without.status, 0) << without.output;
  EXPECT_NE(without.output.find("accel::conv2d"), std::string::npos) << without.output;
  EXPECT_NE(without.output.find("--ops"), std::string::npos) << without.output;

  const Command with = run_command(run + " --ops " + XPORT_EXAMPLE_OPS);
  ASSERT_EQ(with.status, 0) << with.output;
  std::vector<std::filesystem::path> outputs;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename() != "x.npy") outputs.push_back(e.path());
  }
  ASSERT_EQ(outputs.size(), 1u) << with.output;
  EXPECT_TRUE(allclose(load_npy(outputs[0].string()), p.run({x})[0], 1e-5, 1e-6));

  const Command not_a_library = run_command(run + " --ops " + (dir / "x.npy").string());
  EXPECT_NE(not_a_library.status, 0);
  EXPECT_NE(not_a_library.output.find("cannot load it"), std::string::npos)
      << not_a_library.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace xport
