// xport::onnx::save: what the model says about itself, and what it refuses. ONNX Runtime runs the
// models of every data set in tests/onnx/onnx_runtime_cases.py (ctest onnx_runtime_cases).
#include "xport/onnx.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "expect_error.h"
#include "xport/xport.h"

namespace xport {
namespace {

using test_support::expect_error;

// A fresh directory, removed with what it holds.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("onnx-export-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  size_t entries() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path_),
                                             std::filesystem::directory_iterator()));
  }

 private:
  std::filesystem::path path_;
};

ExportedProgram dynamic_linear() {
  nn::Linear fc(3, 4);
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 2, 64)}}};
  return export_program(
      fc, [&](const Tensor& x) { return relu(fc.forward(x)); }, {randn({5, 3}, 1)}, options);
}

TEST(OnnxExport, NamesDynamicDimsByTheUsersDimsAndKeepsTheContract) {
  TempDir dir;
  onnx::save(dynamic_linear(), dir.file("linear.onnx"));
  const std::string text = onnx::describe(dir.file("linear.onnx"));
  EXPECT_NE(text.find("opset: ai.onnx 17"), std::string::npos) << text;
  EXPECT_NE(text.find("input x: FLOAT [batch, 3]"), std::string::npos) << text;
  EXPECT_NE(text.find("FLOAT [batch, 4]"), std::string::npos) << text;
  EXPECT_NE(text.find("batch in [2, 64]  (x.size(0))"), std::string::npos) << text;
  EXPECT_EQ(dir.entries(), 1u);  // the model only: nothing left beside it
}

TEST(OnnxExport, DerivedDimsAreExpressionsOfTheDim) {
  ExportOptions options;
  const Dim d("d", 2, 32);
  options.dynamic_shapes = {{{0, 2 * d}}, {{0, d}}};
  const ExportedProgram program = export_program(
      [](const Tensor& x, const Tensor& y) { return x.view({2, -1}) + y; },
      {randn({8}, 1), randn({4}, 2)}, options);
  TempDir dir;
  onnx::save(program, dir.file("derived.onnx"));
  const std::string text = onnx::describe(dir.file("derived.onnx"));
  EXPECT_NE(text.find("input x0: FLOAT [2*d]"), std::string::npos) << text;
  EXPECT_NE(text.find("input x1: FLOAT [d]"), std::string::npos) << text;
  EXPECT_NE(text.find("d in [2, 32]"), std::string::npos) << text;
}

TEST(OnnxExport, AnUpdatedInputIsAnExtraOutput) {
  const ExportedProgram program = export_program(
      [](Tensor x) {
        x.add_(1.0);
        return x * 2.0;
      },
      {randn({3}, 1)});
  TempDir dir;
  onnx::save(program, dir.file("update.onnx"));
  const std::string text = onnx::describe(dir.file("update.onnx"));
  EXPECT_NE(text.find("output updated_x: FLOAT [3]"), std::string::npos) << text;
  EXPECT_NE(text.find("output updates x (user_input_mutation)"), std::string::npos) << text;
}

TEST(OnnxExport, AnOpWithNoLoweringIsRefusedAtItsLineAndLeavesNoFile) {
  const ExportedProgram program = export_program(
      [](const Tensor& x, const Tensor& y) { return atan2(x, y); },  // atan2: no ONNX op
      {randn({3}, 1), randn({3}, 2)});
  TempDir dir;
  expect_error([&] { onnx::save(program, dir.file("atan2.onnx")); }, ErrorKind::UnsupportedOp,
               {"aten::atan2", "onnx_export_test.cpp:", "no ONNX lowering"});
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(OnnxExport, RefusesAnOpsetTheLibraryDoesNotKnow) {
  TempDir dir;
  onnx::Options options;
  options.opset = 18;
  expect_error([&] { onnx::save(dynamic_linear(), dir.file("m.onnx"), options); },
               ErrorKind::InvalidInput, {"opset 18", "use 17"});
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(OnnxExport, DescribeRefusesAFileThatIsNotAModel) {
  TempDir dir;
  {
    std::ofstream(dir.file("junk.onnx")) << "not a protobuf \xff\xff\xff";
  }
  expect_error([&] { onnx::describe(dir.file("junk.onnx")); }, ErrorKind::InvalidArchive,
               {"junk.onnx", "not an ONNX model"});
}

}  // namespace
}  // namespace xport
