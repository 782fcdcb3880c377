#pragma once
// Counters shared by the microbenchmarks, so the comparison script reads one format.

#include <benchmark/benchmark.h>

#include <cstdint>

namespace xport::bench {

/// Reports GB/s for `bytes` moved per iteration.
inline void set_bytes(benchmark::State& state, int64_t bytes) {
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(bytes) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
}
/// Reports GFLOP/s for `flops` per iteration.
inline void set_flops(benchmark::State& state, double flops) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace xport::bench
