// Elementwise microbenchmarks: bytes moved per second over 16M floats.
#include <benchmark/benchmark.h>

#include "bench/bench_util.h"
#include "xport/xport.h"

namespace {

constexpr int64_t kN = 16 * 1024 * 1024;

void BM_Add16M(benchmark::State& state) {
  const xport::Tensor a = xport::randn({kN}, 1), b = xport::randn({kN}, 2);
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
  xport::bench::set_bytes(state, 3 * kN * sizeof(float));  // two reads, one write
}
BENCHMARK(BM_Add16M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Gelu16M(benchmark::State& state) {
  const xport::Tensor a = xport::randn({kN}, 1);
  for (auto _ : state) benchmark::DoNotOptimize(xport::gelu(a));
  xport::bench::set_bytes(state, 2 * kN * sizeof(float));
}
BENCHMARK(BM_Gelu16M)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
