// `xport demo` end to end on the real GPT-2 (about 10 s in a release build): capture with a
// dynamic sequence length, the archive on disk, the runtime matching eager, inputs outside the
// contract refused.
#include "tools/xport/gpt2_demo.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "serde/round_trip.h"

namespace xport {
namespace {

TEST(Demo, CapturesSavesLoadsAndRunsGpt2WithinTheContract) {
  const test_support::TempFile archive("demo-test");
  tools::Gpt2DemoOptions options;
  options.archive = archive.path();
  options.steps = 2;
  std::ostringstream out;
  ASSERT_EQ(tools::run_gpt2_demo(options, out), 0) << out.str();
  const std::string text = out.str();
  for (const std::string& expected :
       {std::string("\ncontract:\n  ids: i64[1, s0]\n  positions: i64[s0]\n"
                    "  s0: tokens in [1, 256]  (ids.size(1))\n"),
        std::string("; 24 buffer mutations (the caches)\n"),
        "\narchive:    " + archive.path() + ", ",
        std::string("\n   6 tokens: runtime "), std::string("\n  32 tokens: runtime "),
        std::string("\ndecoding 2 tokens through the KV cache, one runtime call each"),
        std::string("(random weights: the tokens mean nothing; pass --weights for a real "
                    "continuation)"),
        std::string("\n            first step "),
        std::string(" per token (median of 1 later step)\n"),
        std::string("\n            each step's logits against eager over the whole prefix (no cache): "
                    "largest relative diff "),
        std::string("\n  257 tokens: ids.size(1) = 257 is outside the range [1, 256] of Dim "
                    "'tokens'\n"),
        std::string("\n  ids of rank 1: input ids: expected 2 dims [1, s0], got 1 dims [6]\n"),
        std::string("\n  5 positions for 6 tokens: ")}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\nnot in:\n" << text;
  }
  EXPECT_EQ(text.find("FAILED"), std::string::npos) << text;
  EXPECT_GT(std::filesystem::file_size(archive.path()), 400'000'000u);
}

}  // namespace
}  // namespace xport
