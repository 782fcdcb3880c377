// Memory-bound microbenchmarks: elementwise ops over 16M floats, and softmax / layer_norm over
// the last dim of a [64, 128, 768] activation (BERT-base sized), in GB/s of input + output.
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

// Per-call overhead: argument binding, meta function, allocation, dispatch.
void BM_AddSmall(benchmark::State& state) {
  const xport::Tensor a = xport::randn({16}, 1), b = xport::randn({16}, 2);
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
  xport::bench::set_bytes(state, 3 * 16 * sizeof(float));
}
BENCHMARK(BM_AddSmall)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_Softmax(benchmark::State& state) {
  const xport::Tensor x = xport::randn({64, 128, 768}, 3);
  for (auto _ : state) benchmark::DoNotOptimize(xport::softmax(x, -1));
  xport::bench::set_bytes(state, 2 * x.int_numel() * sizeof(float));
}
BENCHMARK(BM_Softmax)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LayerNorm(benchmark::State& state) {
  const xport::Tensor x = xport::randn({64, 128, 768}, 4);
  const xport::Tensor w = xport::randn({768}, 5), b = xport::randn({768}, 6);
  for (auto _ : state) benchmark::DoNotOptimize(xport::layer_norm(x, {768}, w, b));
  xport::bench::set_bytes(state, 2 * x.int_numel() * sizeof(float));
}
BENCHMARK(BM_LayerNorm)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
