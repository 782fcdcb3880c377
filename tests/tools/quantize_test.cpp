// `xport quantize`: an archive quantized with each scheme (static int8 calibrated on a folder of
// .npy input sets), saved, and near the float program on inputs inside the contract; and the
// errors a user meets.
#include "tools/xport/quantize.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "expect_error.h"
#include "serde/round_trip.h"
#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;
using test_support::TempFile;

ExportedProgram mlp() {
  auto m = models::mlp({128, 256, 16});
  m->eval();
  ExportOptions options;
  options.dynamic_shapes = {{{0, Dim("batch", 1, 32)}}};
  options.input_names = {"features"};
  return export_program(*m, [&](const Tensor& x) { return m->forward(x); }, {randn({4, 128}, 1)},
                        options);
}

double relative_error(const Tensor& got, const Tensor& want) {
  return (got - want).abs().max().item<float>() / want.abs().max().item<float>();
}

TEST(QuantizeTool, EachSchemeWritesAnArchiveNearTheFloatProgram) {
  const ExportedProgram program = mlp();
  TempFile in("quantize-in");
  save(program, in.path());
  // Three input sets, one subfolder each.
  const fs::path sets = fs::path(::testing::TempDir()) / "quantize-calibration";
  fs::remove_all(sets);
  for (int k = 0; k < 3; ++k) {
    fs::create_directories(sets / std::to_string(k));
    save_npy(randn({8, 128}, 10 + static_cast<uint64_t>(k)),
             (sets / std::to_string(k) / "features.npy").string());
  }
  const Tensor x = randn({5, 128}, 20);
  const Tensor want = program.run({x}).at(0);
  for (const char* scheme : {"static-int8", "dynamic-int8", "int8-weight", "int4-weight",
                             "bf16"}) {
    TempFile out("quantize-out");
    std::ostringstream report;
    const bool calibrated = std::string(scheme) == "static-int8";
    tools::QuantizeOptions options{.archive = in.path(), .out = out.path(), .scheme = scheme,
                                   .calibrate = calibrated ? sets.string() : "",
                                   .group_size = 64};
    EXPECT_EQ(tools::run_quantize(options, report), 0);
    EXPECT_NE(report.str().find(std::string(scheme) == "bf16"
                                    ? "2 weights stored as bfloat16, linear layers computed"
                                    : "2 layers quantized"),
              std::string::npos)
        << report.str();
    if (calibrated) {
      EXPECT_NE(report.str().find("calibrated on 3 input sets"), std::string::npos);
    }
    const ExportedProgram quantized = load(out.path());
    EXPECT_LT(relative_error(quantized.run({x}).at(0), want),
              std::string(scheme) == "int4-weight" ? 0.15 : 0.05)
        << scheme;
  }
}

TEST(QuantizeTool, NamesWhatACalibrationFolderLacks) {
  TempFile in("quantize-in"), out("quantize-out");
  save(mlp(), in.path());
  const fs::path sets = fs::path(::testing::TempDir()) / "quantize-wrong-names";
  fs::remove_all(sets);
  fs::create_directories(sets);
  save_npy(randn({2, 128}, 1), (sets / "x.npy").string());
  std::ostringstream report;
  test_support::expect_error(
      [&] {
        tools::run_quantize({.archive = in.path(), .out = out.path(), .scheme = "static-int8",
                             .calibrate = sets.string(), .group_size = 128},
                            report);
      },
      ErrorKind::InvalidInput, {"has no features.npy for input 'features'", "features: f32[s"});
  test_support::expect_error(
      [&] {
        tools::run_quantize({.archive = in.path(), .out = out.path(), .scheme = "static-int8",
                             .calibrate = "", .group_size = 128},
                            report);
      },
      ErrorKind::InvalidInput, {"add --calibrate DIR", "or choose dynamic-int8"});
  test_support::expect_error(
      [&] {
        tools::run_quantize({.archive = in.path(), .out = out.path(), .scheme = "int8-weight",
                             .calibrate = sets.string(), .group_size = 128},
                            report);
      },
      ErrorKind::InvalidInput, {"int8-weight needs no calibration"});
}

}  // namespace
}  // namespace xport
