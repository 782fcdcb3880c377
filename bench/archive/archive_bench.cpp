// PT2 archives of the reference models (random weights, eval mode): save and load times, and a
// fresh process's load, first run and peak memory. bench/compare_archive.py runs both modes and
// prints the table beside `cat FILE > /dev/null` of the same bytes.
//
// Benchmark mode (Google Benchmark flags, plus --archive-dir=DIR, default ./bench-archive):
//   BM_save/<model>        one xport::save of the exported program to DIR/<model>.pt2
//   BM_load/<model>        one xport::load of that file, page cache warm (weights mapped, not read)
//   BM_load_touch/<model>  load, then read one byte of every 4 KiB page of every stored tensor:
//                          what it costs to have the weights in memory, comparable with `cat`
// Each model is exported once per process and saved before its first benchmark.
//
// Fresh-process mode: `xport_archive_bench --load-and-run FILE MODEL` loads FILE, runs it once on
// MODEL's fixed input (and once more, timed apart), and prints one JSON object: the peak RSS
// (getrusage) before loading, after loading and after the first run, the load and run times, and
// the archive's sizes.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "xport/capture/export.h"
#include "xport/nn/models.h"
#include "xport/program/exported_program.h"
#include "xport/serde/archive.h"
#include "xport/xport.h"

#include "../model_inputs.h"

namespace {

using xport::Dim;
using xport::Tensor;

std::string archive_dir = "bench-archive";  // --archive-dir

struct ArchiveCase {
  const char* name;
  std::function<std::shared_ptr<xport::nn::Module>()> build;
  std::function<Tensor()> input;               // the example input, and the run's input
  std::vector<xport::DimSpec> dynamic_shapes;  // empty: all dims static
};

const std::vector<ArchiveCase>& archive_cases() {
  static const std::vector<ArchiveCase> cases = {
      {"resnet50",
       [] { return xport::models::resnet50(); },
       [] {
         return xport::randn({1, 3, 224, 224}, 1);
       },
       {}},
      {"gpt2",
       [] { return xport::models::gpt2(); },
       [] { return xport::bench::token_ids(1, 16, xport::models::Gpt2Config{}.vocab_size); },
       {{{1, Dim("seq", 2, 1024)}}}},
  };
  return cases;
}

const ArchiveCase* find_case(const std::string& name) {
  for (const ArchiveCase& c : archive_cases()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

std::string archive_path(const ArchiveCase& c) {
  return (std::filesystem::path(archive_dir) / (std::string(c.name) + ".pt2")).string();
}

// Reads the whole file, so later loads find it in the page cache.
void warm_page_cache(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
  }
}

// One byte of every page of every distinct storage the program's state lives in (a mapped
// weight's pages are faulted in on first touch).
uint64_t touch_state(const xport::ExportedProgram& program) {
  std::set<const void*> seen;
  uint64_t sum = 0;
  for (const auto& [name, t] : program.state()) {
    const auto& storage = t.storage();
    if (!storage || !seen.insert(storage->data()).second) continue;
    const auto* bytes = static_cast<const volatile unsigned char*>(storage->data());
    for (int64_t i = 0; i < storage->nbytes(); i += 4096) sum += bytes[i];
  }
  return sum;
}

struct Prepared {
  std::unique_ptr<xport::ExportedProgram> program;
  std::string error;  // from the export or the first save; the case is skipped with it
};

// Exports each model once per process and saves it, so every benchmark finds the file.
Prepared& prepare(const ArchiveCase& c) {
  static std::map<std::string, Prepared> prepared;
  auto it = prepared.find(c.name);
  if (it == prepared.end()) {
    Prepared p;
    try {
      auto model = c.build();
      model->eval();
      xport::ExportOptions options;
      options.dynamic_shapes = c.dynamic_shapes;
      p.program = std::make_unique<xport::ExportedProgram>(xport::export_program(
          *model, [&](const Tensor& x) { return model->forward(x); }, {c.input()}, options));
      std::filesystem::create_directories(archive_dir);
      xport::save(*p.program, archive_path(c));
    } catch (const std::exception& e) {
      p.error = e.what();
    }
    it = prepared.emplace(c.name, std::move(p)).first;
  }
  return it->second;
}

void BM_save(benchmark::State& state, const ArchiveCase& c) {
  Prepared& p = prepare(c);
  if (!p.error.empty()) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  const std::string path = archive_path(c);
  for (auto _ : state) xport::save(*p.program, path);
  state.counters["MB"] = static_cast<double>(std::filesystem::file_size(path)) * 1e-6;
}

void BM_load(benchmark::State& state, const ArchiveCase& c, bool touch) {
  Prepared& p = prepare(c);
  if (!p.error.empty()) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  const std::string path = archive_path(c);
  warm_page_cache(path);
  for (auto _ : state) {
    const xport::ExportedProgram program = xport::load(path);
    if (touch) benchmark::DoNotOptimize(touch_state(program));
    benchmark::DoNotOptimize(&program);
  }
}

const bool kRegistered = [] {
  for (const ArchiveCase& c : archive_cases()) {
    const std::string name = c.name;
    benchmark::RegisterBenchmark(("BM_save/" + name).c_str(), BM_save, c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_load/" + name).c_str(), BM_load, c, false)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_load_touch/" + name).c_str(), BM_load, c, true)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return true;
}();

// Peak resident set size so far, in bytes (Linux reports ru_maxrss in KiB).
int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

int load_and_run(const std::string& path, const std::string& model) {
  const ArchiveCase* c = find_case(model);
  if (c == nullptr) {
    std::cerr << "--load-and-run: unknown model '" << model << "'; expected resnet50 or gpt2\n";
    return 2;
  }
  const Tensor input = c->input();  // before the baseline: not part of loading or running
  const int64_t baseline = peak_rss_bytes();
  auto start = std::chrono::steady_clock::now();
  xport::ArchiveInfo info;
  const xport::ExportedProgram program = xport::load(path, info);
  const double load_ms = ms_since(start);
  const int64_t after_load = peak_rss_bytes();
  start = std::chrono::steady_clock::now();
  std::vector<Tensor> out = program.run({input});
  const double first_run_ms = ms_since(start);
  const int64_t after_run = peak_rss_bytes();
  out.clear();
  start = std::chrono::steady_clock::now();
  out = program.run({input});
  const double second_run_ms = ms_since(start);
  std::printf(
      "{\"model\": \"%s\", \"baseline_rss_bytes\": %lld, \"load_rss_bytes\": %lld, "
      "\"peak_rss_bytes\": %lld, \"load_ms\": %.3f, \"first_run_ms\": %.3f, "
      "\"second_run_ms\": %.3f, \"weight_bytes\": %lld, \"constant_bytes\": %lld, "
      "\"file_bytes\": %lld}\n",
      model.c_str(), static_cast<long long>(baseline), static_cast<long long>(after_load),
      static_cast<long long>(after_run), load_ms, first_run_ms, second_run_ms,
      static_cast<long long>(info.weight_bytes), static_cast<long long>(info.constant_bytes),
      static_cast<long long>(info.file_bytes));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--load-and-run") == 0) {
    if (argc != 4) {
      std::cerr << "usage: " << argv[0] << " --load-and-run FILE MODEL\n";
      return 2;
    }
    try {
      return load_and_run(argv[2], argv[3]);
    } catch (const xport::Error& e) {
      std::cerr << "--load-and-run " << argv[2] << ": " << e.what() << "\n";
      return 1;
    }
  }
  // Take --archive-dir=DIR out before Google Benchmark sees the flags.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--archive-dir=", 0) == 0) {
      archive_dir = arg.substr(std::strlen("--archive-dir="));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
