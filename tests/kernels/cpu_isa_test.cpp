// XPORT_MAX_CPU_ISA caps Highway's and oneDNN's dispatch in one place. The cap is read once per
// process, so each case runs in a forked child that sets it before any kernel has run, and
// reports what the kernels chose through a pipe (run a case alone, as ctest does: in a process
// whose kernels have run already the child inherits the cap in force).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "kernels/cpu/cpu_isa.h"
#include "xport/xport.h"

namespace xport::kernels::cpu {
namespace {

// Runs `fn` in a child with XPORT_MAX_CPU_ISA=cap and returns what it wrote.
template <class Fn>
std::string in_child_capped_at(const std::string& cap, Fn fn) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    setenv("XPORT_MAX_CPU_ISA", cap.c_str(), 1);
    std::string text;
    try {
      text = fn();
    } catch (const std::exception& e) {
      text = std::string("error: ") + e.what();
    }
    const ssize_t written = write(fds[1], text.data(), text.size());
    _exit(written == static_cast<ssize_t>(text.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return text;
}

// A matrix product (oneDNN) and a softmax (Highway) run first, so both dispatchers have chosen
// before the ISA is read back.
std::string run_kernels_then_describe() {
  const Tensor a = randn({64, 96}, 1), b = randn({96, 80}, 2);
  const Tensor y = softmax(matmul(a, b), -1);
  if (!std::isfinite(y.sum().item<float>())) return "error: non-finite result";
  return highway_target() + " " + onednn_isa();
}

TEST(CpuIsa, AnAvx2CapHoldsForHighwayAndOneDnn) {
  const std::string chosen = in_child_capped_at("avx2", run_kernels_then_describe);
  // AVX2 where the CPU has it, else the portable fallback and whatever less oneDNN takes.
  const bool highway_capped = chosen.rfind("AVX2 ", 0) == 0 || chosen.rfind("AVX", 0) != 0;
  const std::string onednn = chosen.substr(chosen.find(' ') + 1);
  EXPECT_TRUE(highway_capped) << chosen;
  EXPECT_TRUE(onednn == "avx2" || onednn == "avx" || onednn == "sse41") << chosen;
}

TEST(CpuIsa, AnSse41CapLeavesHighwaysPortableLoopsAndOneDnnsSse41) {
  const std::string chosen = in_child_capped_at("SSE41", run_kernels_then_describe);
  // Highway's fallback (SCALAR, EMU128, or SSE2 in newer Highway): no AVX target.
  EXPECT_EQ(chosen.rfind("AVX", 0), std::string::npos) << chosen;
  EXPECT_EQ(chosen.substr(chosen.find(' ') + 1), "sse41") << chosen;
}

TEST(CpuIsa, WithoutACapTheKernelsTakeTheBestTheCpuHas) {
  const std::string chosen = in_child_capped_at("", [] {
    run_kernels_then_describe();
    return kernel_isa();
  });
  EXPECT_EQ(chosen.find("capped"), std::string::npos) << chosen;
  // Highway's AVX-512 targets are AVX3 and, in newer Highway, AVX3_ZEN4 or AVX3_SPR.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) {
    EXPECT_EQ(chosen.rfind("Highway AVX3", 0), 0u) << chosen;
    EXPECT_NE(chosen.find(", oneDNN avx512_core"), std::string::npos) << chosen;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_EQ(chosen.rfind("Highway AVX2, oneDNN avx2", 0), 0u) << chosen;
  }
}

TEST(CpuIsa, AnUnknownCapIsRefusedNamingTheAcceptedOnes) {
  const std::string text = in_child_capped_at("AVX3000", run_kernels_then_describe);
  EXPECT_NE(text.find("error: XPORT_MAX_CPU_ISA=AVX3000 is not an instruction set the kernels "
                      "know: write SSE41, AVX2, AVX512_CORE or ALL"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace xport::kernels::cpu
