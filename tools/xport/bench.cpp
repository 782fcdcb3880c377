#include "tools/xport/bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

#include "tools/xport/program_inputs.h"
#include "xport/core/expr.h"
#include "xport/ops/functions.h"
#include "xport/runtime.h"

namespace xport::tools {
namespace {

using Clock = std::chrono::steady_clock;

// `4x8x16` -> {4, 8, 16}.
std::vector<int64_t> parse_shape(const std::string& name, const std::string& text) {
  std::vector<int64_t> sizes;
  size_t start = 0;
  while (true) {
    size_t end = text.find('x', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(start, end - start);
    size_t used = 0;
    int64_t size = -1;
    try {
      size = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    XPORT_CHECK(used > 0 && used == part.size() && size >= 0 && part[0] != '-' && part[0] != '+',
                InvalidInput, "bench: --shape ", name, "=", text, ": '", part,
                "' is not a size; write NAME=AxBxC with non-negative integers, e.g. ", name,
                "=1x128");
    sizes.push_back(size);
    if (end == text.size()) return sizes;
    start = end + 1;
  }
}

// The contract's sizes when they are all static.
std::optional<std::vector<int64_t>> static_shape(const InputContract& c) {
  std::vector<int64_t> sizes;
  for (const sym::ExprPtr& e : c.sizes) {
    const std::optional<int64_t> v = sym::as_int(e);
    if (!v) return std::nullopt;
    sizes.push_back(*v);
  }
  return sizes;
}

// Standard normal for floating dtypes, uniform in [0, 100) for integers, {0, 1} for bool.
Tensor random_tensor(const std::vector<int64_t>& sizes, DType dtype, uint64_t seed) {
  if (is_floating(dtype)) return randn(sizes, seed, dtype);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> dist(0, dtype == DType::Bool ? 1 : 99);
  std::vector<int64_t> values(static_cast<size_t>(numel));
  for (int64_t& v : values) v = dist(rng);
  return from_vector(values, sizes).to(dtype);
}

std::string random_kind(DType dtype) {
  if (is_floating(dtype)) return "standard normal";
  return dtype == DType::Bool ? "uniform {false, true}" : "uniform ints in [0, 100)";
}

struct Inputs {
  std::vector<Value> values;
  std::string description;  // one line per input
};

Inputs make_inputs(const runtime::Program& program, const BenchOptions& options) {
  const auto& contract = program.contract();
  const std::map<std::string, std::string> given =
      assignments_by_name(options.shapes, "bench", "--shape", contract, program.symbols());
  Inputs inputs;
  uint64_t seed = options.seed;
  for (const InputContract& c : contract) {
    const auto it = given.find(c.name);
    if (is_plain(c)) {
      XPORT_CHECK(it == given.end(), InvalidInput, "bench: --shape ", c.name, ": ", c.name,
                  " is not a tensor but ", contract_type(c));
      inputs.values.push_back(plain_input(c, nullptr, "bench"));
      inputs.description += "  " + c.name + " = " + inputs.values.back().str() + "\n";
      continue;
    }
    if (c.kind == InputContract::Kind::TensorList) {
      // List elements are static in the contract: they always take its shapes.
      XPORT_CHECK(it == given.end(), InvalidInput, "bench: --shape ", c.name,
                  ": a tensor list's elements have static shapes ", contract_type(c),
                  "; leave out --shape for it");
      std::vector<Tensor> list;
      for (const InputContract& e : c.elements) {
        list.push_back(random_tensor(*static_shape(e), e.dtype, seed++));
      }
      inputs.values.push_back(std::move(list));
      inputs.description += "  " + c.name + ": " + contract_type(c) + "\n";
      continue;
    }
    std::optional<std::vector<int64_t>> sizes = static_shape(c);
    if (it != given.end()) sizes = parse_shape(c.name, it->second);
    XPORT_CHECK(sizes.has_value(), InvalidInput, "bench: no --shape for ", c.name, " (",
                contract_type(c), " has dynamic dims); pass --shape ", c.name,
                "=AxBxC inside its contract", expected_inputs(contract, program.symbols()));
    inputs.values.push_back(random_tensor(*sizes, c.dtype, seed++));
    inputs.description += "  " + c.name + ": " + dtype_name(c.dtype) + " " + shape_str(*sizes) +
                          ", " + random_kind(c.dtype) + "\n";
  }
  return inputs;
}

// Nearest rank: the smallest sample with at least fraction p of the samples at or below it.
double percentile(const std::vector<double>& sorted, double p) {
  const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports kilobytes
}

}  // namespace

int run_bench(const BenchOptions& options, std::ostream& out) {
  XPORT_CHECK(options.runs >= 1, InvalidInput, "bench: --runs ", options.runs, "; give at least 1");
  XPORT_CHECK(options.warmup >= 0, InvalidInput, "bench: --warmup ", options.warmup,
              "; give 0 or more");
  runtime::Options runtime_options;
  runtime_options.num_threads = options.threads;
  runtime_options.fuse = options.fuse;
  Clock::time_point start = Clock::now();
  const runtime::Program program = runtime::Program::load(options.archive, runtime_options);
  const double load_ms = ms_since(start);
  const Inputs inputs = make_inputs(program, options);

  // The first run checks the inputs against the contract (throwing the runtime's error) and
  // plans memory for their shapes.
  start = Clock::now();
  program.run_values(inputs.values);
  const double first_ms = ms_since(start);
  for (int i = 0; i < options.warmup; ++i) program.run_values(inputs.values);
  std::vector<double> times;
  double total_ms = 0;
  for (int i = 0; i < options.runs; ++i) {
    start = Clock::now();
    program.run_values(inputs.values);
    times.push_back(ms_since(start));
    total_ms += times.back();
  }
  std::sort(times.begin(), times.end());

  out << "archive:     " << options.archive << "\n";
  out << "threads:     ";
  if (options.threads > 0) {
    out << options.threads << "\n";
  } else {
    out << "the machine's cores (" << std::thread::hardware_concurrency() << ")\n";
  }
  out << "kernels:     " << runtime::kernel_isa() << "\n";
  out << "inputs:\n" << inputs.description;
  out << "load:        " << ms_str(load_ms) << "\n";
  out << "first run:   " << ms_str(first_ms)
      << " (checks the contract, plans memory, pages in the weights)\n";
  const size_t n = times.size();
  const double median = (times[(n - 1) / 2] + times[n / 2]) / 2;
  out << "latency:     median " << ms_str(median) << ", p90 " << ms_str(percentile(times, 0.9))
      << ", p99 " << ms_str(percentile(times, 0.99)) << ", min " << ms_str(times.front())
      << " over " << options.runs << " runs (after " << options.warmup << " warm-up)\n";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f runs/s (one run at a time)",
                1000.0 * options.runs / std::max(total_ms, 1e-9));
  out << "throughput:  " << buf << "\n";
  std::snprintf(buf, sizeof(buf), "%.1f MB", peak_rss_mb());
  out << "peak RSS:    " << buf << "\n";
  out << "plan:        " << program.plan_stats(inputs.values).str() << "\n";
  if (options.profile) {
    const std::vector<runtime::OpTime> ops = program.profile(inputs.values, options.runs);
    double kernel_ms = 0;
    for (const runtime::OpTime& t : ops) kernel_ms += t.ms;
    out << "profile:     kernel time of the median of " << options.runs << " runs, by op ("
        << ms_str(kernel_ms) << " in all)\n";
    for (const runtime::OpTime& t : ops) {
      std::snprintf(buf, sizeof(buf), "%10s %5.1f%% %5lld calls  ", ms_str(t.ms).c_str(),
                    100.0 * t.ms / std::max(kernel_ms, 1e-9), static_cast<long long>(t.calls));
      out << "  " << buf << t.op << "\n";
    }
    if (ops.empty()) out << "  (none: no step calls a kernel)\n";
  }
  return 0;
}

}  // namespace xport::tools
