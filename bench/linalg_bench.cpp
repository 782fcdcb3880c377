// Microbenchmarks of the linalg family: float32 GEMM, attention-sized bmm and ResNet-50
// convolutions (batch 1), through the public API (dispatch included). bench/compare_ops.py runs
// the same cases on PyTorch.
#include <benchmark/benchmark.h>

#include <string>

#include "bench/bench_util.h"
#include "xport/xport.h"

namespace {

using xport::Tensor;

void BM_Gemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = xport::randn({n, n}, 1);
  const Tensor b = xport::randn({n, n}, 2);
  for (auto _ : state) benchmark::DoNotOptimize(xport::mm(a, b));
  xport::bench::set_flops(state, 2.0 * n * n * n);
}
BENCHMARK(BM_Gemm)->Arg(1024)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime();

// Attention scores: [12 heads, seq, 64] @ [12, 64, seq] (a transposed operand, read in place).
void BM_Bmm(benchmark::State& state) {
  const int64_t heads = 12, seq = state.range(0), d = 64;
  const Tensor q = xport::randn({heads, seq, d}, 3);
  const Tensor k = xport::randn({heads, seq, d}, 4);
  for (auto _ : state) benchmark::DoNotOptimize(xport::bmm(q, k.transpose(1, 2)));
  xport::bench::set_flops(state, 2.0 * heads * seq * seq * d);
}
BENCHMARK(BM_Bmm)->Arg(128)->Arg(512)->Unit(benchmark::kMicrosecond)->UseRealTime();

struct ConvCase {
  const char* name;
  int64_t in_channels, size, out_channels, kernel, stride, padding;
};

// ResNet-50 layers at batch 1, named as in bench/compare_ops.py.
constexpr ConvCase kConvCases[] = {
    {"stem_3x224_k7s2", 3, 224, 64, 7, 2, 3}, {"c64x56_k3", 64, 56, 64, 3, 1, 1},
    {"c256x56_k1", 256, 56, 64, 1, 1, 0},     {"c128x28_k3", 128, 28, 128, 3, 1, 1},
    {"c256x14_k3", 256, 14, 256, 3, 1, 1},    {"c512x7_k3", 512, 7, 512, 3, 1, 1},
    {"c1024x14_k1", 1024, 14, 256, 1, 1, 0},
};

void BM_Conv2d(benchmark::State& state, const ConvCase& c) {
  const Tensor x = xport::randn({1, c.in_channels, c.size, c.size}, 5);
  const Tensor w = xport::randn({c.out_channels, c.in_channels, c.kernel, c.kernel}, 6);
  const int64_t out = (c.size + 2 * c.padding - c.kernel) / c.stride + 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        xport::conv2d(x, w, Tensor(), {c.stride, c.stride}, {c.padding, c.padding}));
  }
  xport::bench::set_flops(state,
                          2.0 * c.out_channels * out * out * c.in_channels * c.kernel * c.kernel);
}

const bool kConvRegistered = [] {
  for (const ConvCase& c : kConvCases) {
    benchmark::RegisterBenchmark((std::string("BM_Conv2d/") + c.name).c_str(), BM_Conv2d, c)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace
