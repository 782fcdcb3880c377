// `xport inspect`: the program as it prints, then the archive's versions, sizes and contract.
#include "tools/xport/inspect.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::TempFile;

// An MLP 8 -> 16 -> 4 with a dynamic batch, saved to a temp file.
class Inspect : public ::testing::Test {
 protected:
  void SetUp() override {
    auto model = models::mlp({8, 16, 4});
    model->eval();
    ExportOptions options;
    options.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}};
    const ExportedProgram program = export_program(
        *model, [&](const Tensor& x) { return model->forward(x); }, {randn({3, 8}, 1)}, options);
    printed_ = program.to_string();
    save(program, file_.path());
  }
  std::string inspect(const std::string& path) {
    std::ostringstream out;
    EXPECT_EQ(tools::run_inspect(path, out), 0);
    return out.str();
  }

  TempFile file_{"inspect-test"};
  std::string printed_;
};

TEST_F(Inspect, PrintsTheProgramThenVersionsSizesAndContract) {
  const std::string text = inspect(file_.path());
  // The program first, exactly as ExportedProgram::to_string prints it.
  ASSERT_EQ(text.substr(0, printed_.size()), printed_) << text;
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "graph(%p_layers_0_weight : f32[16, 8], %p_layers_0_bias : f32[16], "
            "%p_layers_2_weight : f32[4, 16], %p_layers_2_bias : f32[4], %x : f32[s0, 8]):");
  EXPECT_NE(text.find("\n  %addmm = aten::addmm.default(%p_layers_0_bias, %x, %transpose)  # "
                      "f32[s0, 16]  "),
            std::string::npos)
      << text;
  EXPECT_NE(printed_.find("s0: batch in [2, 64]  (x.size(0))"), std::string::npos) << printed_;
  const std::string summary = text.substr(printed_.size());
  const int64_t file_bytes = static_cast<int64_t>(std::filesystem::file_size(file_.path()));
  // Weights: two Linear layers, 8*16 + 16 + 16*4 + 4 floats.
  const std::string expected = "\narchive: " + file_.path() +
                               "\n"
                               "  schema version:   8.17\n"
                               "  archive version:  0\n"
                               "  xport contract:   present (written by xport)\n"
                               "  weights:          4 tensors, 848 B\n"
                               "  constants:        0 tensors, 0 B\n"
                               "  file size:        ";
  ASSERT_EQ(summary.substr(0, expected.size()), expected) << summary;
  EXPECT_NE(summary.find("(" + std::to_string(file_bytes) + " bytes)\n"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("\ninput contract:\n  x: f32[s0, 8]\n"), std::string::npos) << summary;
}

TEST_F(Inspect, PrintsLargeSizesInDecimalUnitsWithTheExactCount) {
  auto model = models::mlp({256, 1024, 10});
  model->eval();
  const ExportedProgram program = export_program(
      *model, [&](const Tensor& x) { return model->forward(x); }, {randn({2, 256}, 1)});
  TempFile file("inspect-test-large");
  save(program, file.path());
  const std::string text = inspect(file.path());
  // (256*1024 + 1024 + 1024*10 + 10) floats = 1093672 bytes.
  EXPECT_NE(text.find("  weights:          4 tensors, 1.1 MB (1093672 bytes)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("input contract:\n  x: f32[2, 256]\n"), std::string::npos) << text;
}

// An archive written the way torch.export.save writes it has no xport contract metadata; the
// contract shown is the one rebuilt from the graph's inputs.
TEST_F(Inspect, SaysWhenTheContractMetadataIsAbsent) {
  const std::filesystem::path path =
      std::filesystem::path(__FILE__).parent_path() / ".." / "serde" / "data" / "pytorch_style.pt2";
  const std::string text = inspect(path.string());
  EXPECT_NE(text.find("  schema version:   8.3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  xport contract:   absent (rebuilt from the graph's input metadata)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  weights:          2 tensors, 60 B\n"), std::string::npos) << text;
  EXPECT_NE(text.find("input contract:\n  x: f32[s0, 4]\n"), std::string::npos) << text;
}

TEST_F(Inspect, RefusesACorruptFileAsInvalidArchive) {
  std::string bytes = test_support::read_bytes(file_.path());
  bytes.resize(bytes.size() / 2);
  TempFile corrupt("inspect-test-corrupt");
  std::ofstream(corrupt.path(), std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  std::ostringstream out;
  try {
    tools::run_inspect(corrupt.path(), out);
    ADD_FAILURE() << "inspected a truncated archive:\n" << out.str();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArchive) << e.what();
    EXPECT_NE(std::string(e.what()).find(corrupt.path()), std::string::npos) << e.what();
  }
  EXPECT_EQ(out.str(), "");  // nothing printed before the error
}

}  // namespace
}  // namespace xport
