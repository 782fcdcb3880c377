// xport's side of the KV-cache decode benchmark (bench/compare_decode.py): GPT-2 with a KV cache
// of CACHE positions, exported once (new tokens dynamic from 1), run by runtime::Program.
//
//   xport_decode_bench WEIGHTS.safetensors [--cache N] [--runs K] [--warmup W] [--threads T]
//                      [--profile 1] [--scheme fp32|bf16|int8-weight|int4-weight]
//                      [--group-size G]
//
// The bytes and the bandwidth are printed for fp32 only.
// With a weight-only scheme the exported program goes through xport::quant::prepare first (int4:
// groups of G input features, 128 unless given); its linear layers then run as
// xport::weight_only_linear. bf16: xport::quant::to_bf16 (bfloat16 weights, linear layers as
// torch.autocast(bfloat16) computes them: xport::bf16_linear).
//
// Loads Hugging Face GPT2LMHeadModel weights (strict), exports, fills the cache with a prompt of
// CACHE - 1 tokens, then times one-token decode steps at the last position (each step writes it
// again, so every step attends over a full cache). Prints one JSON line: the step times, the
// bytes a step must read (every weight once, the tied lm_head included, one row of wpe, and both
// caches of every layer), and this machine's read bandwidth on T threads (best of 5 passes over
// a 1 GiB array, measured here).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "xport/nn/models.h"
#include "xport/nn/safetensors.h"
#include "xport/runtime.h"
#include "xport/xport.h"

namespace {

using Clock = std::chrono::steady_clock;
using xport::Tensor;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Read bandwidth in GB/s: a sum over a 1 GiB float array on `threads` threads, best of 5.
double read_bandwidth_gbs(int threads) {
  const size_t n = (size_t{1} << 30) / sizeof(float);
  std::vector<float> data(n, 1.0f);
  double best = 0;
  for (int pass = 0; pass < 5; ++pass) {
    const Clock::time_point start = Clock::now();
    double total = 0;
#pragma omp parallel for num_threads(threads) reduction(+ : total) schedule(static)
    for (size_t i = 0; i < n; i += 16) {
      float s = 0;
      for (size_t k = 0; k < 16; ++k) s += data[i + k];
      total += s;
    }
    const double seconds = ms_since(start) / 1000;
    if (total != static_cast<double>(n)) std::abort();  // keeps the loop
    best = std::max(best, static_cast<double>(n * sizeof(float)) / seconds / 1e9);
  }
  return best;
}

std::string arg_str(int argc, char** argv, const std::string& flag, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (flag == argv[i]) return argv[i + 1];
  }
  return fallback;
}

int arg_int(int argc, char** argv, const std::string& flag, int fallback) {
  return std::atoi(arg_str(argc, argv, flag, std::to_string(fallback)).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: xport_decode_bench WEIGHTS.safetensors [--cache N] [--runs K] "
                 "[--warmup W] [--threads T]\n");
    return 2;
  }
  const int cache = arg_int(argc, argv, "--cache", 256);
  const int runs = arg_int(argc, argv, "--runs", 20);
  const int warmup = arg_int(argc, argv, "--warmup", 3);
  const int threads = arg_int(argc, argv, "--threads", 2);
  try {
    xport::models::Gpt2Config config;
    config.cache_size = cache;
    auto model = xport::models::gpt2(config);
    xport::load_safetensors(*model, argv[1]);
    model->eval();
    const xport::Dim tokens("tokens", 1, cache);
    xport::ExportOptions options;
    options.dynamic_shapes = {{{1, tokens}}, {{0, tokens}}};
    options.input_names = {"ids", "positions"};
    auto step = [&](const std::vector<xport::Value>& in) {
      return std::vector<Tensor>{model->forward(in[0].to_tensor(), in[1].to_tensor())};
    };
    const Tensor prompt_ids = xport::arange(0, cache - 1, 1, xport::DType::Int64).reshape({1, -1});
    const Tensor prompt_positions = xport::arange(0, cache - 1, 1, xport::DType::Int64);
    xport::runtime::Options runtime_options;
    runtime_options.num_threads = threads;
    xport::ExportedProgram exported =
        xport::export_program(*model, step, {prompt_ids, prompt_positions}, options);
    const std::string scheme = arg_str(argc, argv, "--scheme", "fp32");
    if (scheme == "bf16") {
      exported = xport::quant::to_bf16(exported);
    } else if (scheme != "fp32") {
      exported = xport::quant::prepare(
          exported, {.scheme = xport::quant::scheme_from_string(scheme),
                     .group_size = arg_int(argc, argv, "--group-size", 128)});
    }
    const xport::runtime::Program program =
        xport::runtime::Program::from_exported(std::move(exported), runtime_options);
    program.run({prompt_ids, prompt_positions});  // prefill: positions 0 .. cache - 2
    const Tensor id = xport::from_vector<int64_t>({464}, {1, 1});
    const Tensor last = xport::from_vector<int64_t>({cache - 1}, {1});
    for (int i = 0; i < warmup; ++i) program.run({id, last});
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
      const Clock::time_point start = Clock::now();
      program.run({id, last});
      times.push_back(ms_since(start));
    }
    // What one step must read: every weight once (wte twice over: a row for the token and all of
    // it for the tied lm_head, counted once), one row of wpe, and both caches of every layer.
    int64_t bytes = 0;
    for (const auto& [name, t] : model->named_parameters()) {
      bytes += name.find("wpe") != std::string::npos ? t.int_size(1) * 4 : t.int_numel() * 4;
    }
    const int64_t head_dim = config.n_embd / config.n_head;
    bytes += 2 * config.n_layer * config.n_head * cache * head_dim * 4;
    const xport::runtime::PlanStats stats = program.plan_stats({id, last});
    if (arg_int(argc, argv, "--profile", 0) != 0) {
      // Where a step's time goes, by op, on stderr.
      for (const xport::runtime::OpTime& t : program.profile({id, last}, runs)) {
        std::fprintf(stderr, "%-48s %4lld calls %8.3f ms\n", t.op.c_str(),
                     static_cast<long long>(t.calls), t.ms);
      }
      std::fprintf(stderr, "%s\n", stats.str().c_str());
    }
    std::printf("{\"times_ms\": [");
    for (size_t i = 0; i < times.size(); ++i) std::printf("%s%.4f", i ? ", " : "", times[i]);
    std::printf("], \"buffers_updated_in_place\": %lld",
                static_cast<long long>(stats.buffers_updated_in_place));
    // The bound is the float32 program's (the other schemes are compared by their steps).
    if (scheme == "fp32") {
      std::printf(", \"bytes_per_step\": %lld, \"bandwidth_gbs\": %.2f",
                  static_cast<long long>(bytes), read_bandwidth_gbs(threads));
    }
    std::printf("}\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xport_decode_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
