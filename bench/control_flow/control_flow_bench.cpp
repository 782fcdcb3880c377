// What control flow costs in the runtime: a cond, and one while_loop iteration, each beside a
// program that runs only its branch's (or body's) kernels. The difference is the overhead of
// the higher-order step (binding the subgraph, its plan's arena, the predicate read).
//
//   build/bench/xport_control_flow_bench
//
// BM_cond/<n>: cond(x.sum() > 0, x + 1, x - 1) on x of n floats; BM_branch/<n>: x.sum() > 0
// and x + 1 straight. BM_while/<iters>: a counter and x = x * 0.5 carried `iters` times (the
// `per_iteration` counter divides by iters); BM_body/<iters>: the same kernels unrolled in one
// program. BM_export/<case>: export_program of each control-flow ExportDB case
// (bench/compare_control_flow.py times torch.export.export of PyTorch's cases beside it).
#include <benchmark/benchmark.h>

#include <algorithm>

#include "xport/exportdb/exportdb.h"
#include "xport/xport.h"

namespace xport {
namespace {

using Tensors = std::vector<Tensor>;

runtime::Program compile(const TracedFn& fn, std::vector<Value> inputs) {
  runtime::Options options;
  options.num_threads = 1;
  return runtime::Program::from_exported(export_program(fn, std::move(inputs)), options);
}

void BM_cond(benchmark::State& state) {
  const Tensor x = ones({state.range(0)});
  const runtime::Program p = compile(
      [](const std::vector<Value>& in) {
        const Tensor t = in[0].to_tensor();
        return cond(
            t.sum().gt(0.0), [](const Tensors& o) { return Tensors{o[0] + 1.0}; },
            [](const Tensors& o) { return Tensors{o[0] - 1.0}; }, {t});
      },
      {x});
  for (auto _ : state) benchmark::DoNotOptimize(p.run({x}));
}

void BM_branch(benchmark::State& state) {
  const Tensor x = ones({state.range(0)});
  const runtime::Program p = compile(
      [](const std::vector<Value>& in) {
        const Tensor t = in[0].to_tensor();
        return Tensors{t.sum().gt(0.0), t + 1.0};
      },
      {x});
  for (auto _ : state) benchmark::DoNotOptimize(p.run({x}));
}

void BM_while(benchmark::State& state) {
  const int64_t iters = state.range(0);
  const Tensor x = ones({16});
  const Tensor limit = full({}, iters, DType::Int64);
  const runtime::Program p = compile(
      [](const std::vector<Value>& in) {
        const Tensor lim = in[1].to_tensor();
        return while_loop([&](const Tensors& c) { return c[0].lt(lim); },
                          [](const Tensors& c) { return Tensors{c[0] + 1, c[1] * 0.5}; },
                          {zeros({}, DType::Int64), in[0].to_tensor()});
      },
      {x, limit});
  for (auto _ : state) benchmark::DoNotOptimize(p.run({x, limit}));
  state.counters["per_iteration"] = benchmark::Counter(
      static_cast<double>(iters), benchmark::Counter::kIsIterationInvariantRate |
                                      benchmark::Counter::kInvert);
}

void BM_body(benchmark::State& state) {
  const int64_t iters = state.range(0);
  const Tensor x = ones({16});
  const Tensor limit = full({}, iters, DType::Int64);
  const runtime::Program p = compile(
      [iters](const std::vector<Value>& in) {
        Tensor c = zeros({}, DType::Int64), t = in[0].to_tensor(), keep;
        for (int64_t i = 0; i < iters; ++i) {
          keep = c.lt(in[1].to_tensor());  // the loop's condition, computed each iteration
          c = c + 1;
          t = t * 0.5;
        }
        return Tensors{c, t, keep};
      },
      {x, limit});
  for (auto _ : state) benchmark::DoNotOptimize(p.run({x, limit}));
  state.counters["per_iteration"] = benchmark::Counter(
      static_cast<double>(iters), benchmark::Counter::kIsIterationInvariantRate |
                                      benchmark::Counter::kInvert);
}

bool is_control_flow(const exportdb::Case& c) {
  return !c.expected_error && std::any_of(c.tags.begin(), c.tags.end(), [](const std::string& t) {
    return t == "cond" || t == "map" || t == "while_loop";
  });
}

const bool kExportCases = [] {
  for (const exportdb::Case& c : exportdb::all_cases()) {
    if (!is_control_flow(c)) continue;
    benchmark::RegisterBenchmark(("BM_export/" + c.name).c_str(), [&c](benchmark::State& state) {
      for (auto _ : state) {
        benchmark::DoNotOptimize(c.module ? export_program(*c.module, c.fn, c.example_inputs,
                                                           c.options)
                                          : export_program(c.fn, c.example_inputs, c.options));
      }
    })->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

BENCHMARK(BM_cond)->Arg(16)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_branch)->Arg(16)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_while)->Arg(100)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_body)->Arg(100)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace xport
