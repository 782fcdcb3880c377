#include "tools/xport/gpt2_demo.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/xport/program_inputs.h"
#include "xport/runtime.h"
#include "xport/xport.h"

namespace xport::tools {
namespace {

using Clock = std::chrono::steady_clock;

// Logits further apart than this, relative to the largest eager logit, fail the demo.
constexpr double kTolerance = 1e-4;
// Positions the KV cache holds: the prompt plus every generated token must fit.
constexpr int64_t kCachePositions = 256;

std::string ids_str(const std::vector<int64_t>& ids) {
  std::string s;
  for (int64_t id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

Tensor as_batch(const std::vector<int64_t>& ids) {
  return from_vector(ids, {1, static_cast<int64_t>(ids.size())});
}

// Positions [begin, end) as int64.
Tensor positions(int64_t begin, int64_t end) { return arange(begin, end, 1, DType::Int64); }

// max |a - ref| / max |ref|.
double relative_diff(const Tensor& a, const Tensor& ref) {
  const double diff = (a - ref).abs().max().item<double>();
  const double scale = ref.abs().max().item<double>();
  return scale > 0 ? diff / scale : diff;
}

// The model at kCachePositions, with the checkpoint's weights or seeded random ones.
std::shared_ptr<models::GPT2> build_model(const Gpt2DemoOptions& options,
                                          models::Gpt2Config& config, std::ostream& out) {
  Clock::time_point start = Clock::now();
  config.cache_size = kCachePositions;
  auto model = models::gpt2(config);
  out << "model:      built in " << ms_str(ms_since(start));
  if (options.weights.empty()) {
    out << ", seeded random weights (pass --weights model.safetensors for a real checkpoint)\n";
  } else {
    start = Clock::now();
    load_safetensors(*model, options.weights);
    out << ", weights " << options.weights << " loaded in " << ms_str(ms_since(start)) << "\n";
  }
  model->eval();
  int64_t params = 0;
  for (const auto& [name, t] : model->named_parameters()) params += t.int_numel();
  out << "parameters: " << params << "; KV cache: " << config.n_layer << " layers x 2 x [1, "
      << config.n_head << ", " << kCachePositions << ", " << config.n_embd / config.n_head
      << "] buffers, updated in place\n";
  return model;
}

// Captured with the number of new tokens dynamic from 1: one program for the prompt (prefill)
// and for every one-token step (decode), at the positions given.
ExportedProgram capture_program(models::GPT2& model, const std::vector<int64_t>& prompt,
                                std::ostream& out) {
  const Dim tokens("tokens", 1, kCachePositions);
  ExportOptions export_options;
  export_options.dynamic_shapes = {{{1, tokens}}, {{0, tokens}}};
  export_options.input_names = {"ids", "positions"};
  const Clock::time_point start = Clock::now();
  ExportedProgram exported = export_program(
      model,
      [&](const std::vector<Value>& in) {
        return std::vector<Tensor>{model.forward(in[0].to_tensor(), in[1].to_tensor())};
      },
      {as_batch(prompt), positions(0, static_cast<int64_t>(prompt.size()))}, export_options);
  int64_t mutated = 0;
  for (const OutputSpec& o : exported.signature().outputs) {
    mutated += o.kind == OutputSpec::Kind::BufferMutation;
  }
  out << "capture:    export_program traced " << exported.graph().nodes().size() << " nodes in "
      << ms_str(ms_since(start)) << "; " << mutated << " buffer mutations (the caches)\n";
  out << "contract:" << contract_lines(exported.contract(), exported.symbols()) << "\n";
  return exported;
}

// Saved, then loaded in the runtime.
runtime::Program save_and_load(const ExportedProgram& exported, const std::string& archive,
                               std::ostream& out) {
  const std::string path =
      archive.empty() ? (std::filesystem::temp_directory_path() / "xport-demo-gpt2.pt2").string()
                      : archive;
  Clock::time_point start = Clock::now();
  save(exported, path);
  const double save_ms = ms_since(start);
  out << "archive:    " << path << ", "
      << bytes_str(static_cast<int64_t>(std::filesystem::file_size(path))) << ", saved in "
      << ms_str(save_ms) << "\n";
  start = Clock::now();
  runtime::Program program = runtime::Program::load(path);
  out << "runtime:    runtime::Program::load in " << ms_str(ms_since(start))
      << " (weights memory-mapped, every node resolved to its kernel)\n";
  return program;
}

// The same program at two lengths, against the eager model without its cache: the prompt's
// logits, or nullopt (after saying why) when they differ.
std::optional<Tensor> compare_with_eager(const runtime::Program& program, models::GPT2& model,
                                         const std::vector<int64_t>& prompt, std::ostream& out) {
  out << "\nruntime vs eager, relative diff = max |runtime - eager| / max |eager| (limit "
      << sci(kTolerance) << "):\n";
  std::vector<int64_t> long_ids = prompt;
  while (long_ids.size() < 32) {
    long_ids.push_back(static_cast<int64_t>((long_ids.size() * 7919 + 31) % 50257));
  }
  Tensor prompt_logits;
  const std::vector<int64_t>* const lengths[] = {&long_ids, &prompt};
  for (const std::vector<int64_t>* ids : lengths) {
    const Tensor x = as_batch(*ids);
    const Tensor at = positions(0, static_cast<int64_t>(ids->size()));
    Clock::time_point start = Clock::now();
    const Tensor logits = program.run({x, at}).at(0);
    const double first_ms = ms_since(start);
    start = Clock::now();
    program.run({x, at});
    const double again_ms = ms_since(start);
    start = Clock::now();
    const Tensor eager = model.forward(x);
    const double eager_ms = ms_since(start);
    const double diff = relative_diff(logits, eager);
    out << "  " << std::setw(2) << ids->size() << " tokens: runtime " << ms_str(first_ms)
        << " (first run: plans memory, pages in the weights), " << ms_str(again_ms)
        << " (again); eager " << ms_str(eager_ms) << "; relative diff " << sci(diff) << "\n";
    if (!(diff <= kTolerance)) {
      out << "FAILED: the runtime's logits differ from eager's by " << sci(diff)
          << " of their largest magnitude, over the limit " << sci(kTolerance) << "\n";
      return std::nullopt;
    }
    if (ids == &prompt) prompt_logits = logits;
  }
  return prompt_logits;
}

// Decoding through the cache, one token a step. With a real checkpoint (--weights) the tokens
// are the model's greedy continuation; with the demo's random weights they mean nothing, so
// what the demo shows is speed and that every step equals eager over the whole prefix. Whether
// every step did.
bool decode_greedily(const runtime::Program& program, models::GPT2& model,
                     const std::vector<int64_t>& prompt, const Tensor& prompt_logits,
                     const Gpt2DemoOptions& options, std::ostream& out) {
  std::vector<int64_t> ids = prompt;
  const auto n = static_cast<int64_t>(prompt.size());
  int64_t next = prompt_logits.select(1, -1).argmax().item<int64_t>();
  std::vector<double> step_ms;
  double worst = 0;
  for (int64_t step = 0; step < options.steps; ++step) {
    ids.push_back(next);
    const Clock::time_point start = Clock::now();
    const Tensor logits = program.run({as_batch({next}), positions(n + step, n + step + 1)}).at(0);
    step_ms.push_back(ms_since(start));
    const Tensor eager_last = model.forward(as_batch(ids)).select(1, -1);
    worst = std::max(worst, relative_diff(logits.select(1, -1), eager_last));
    next = logits.select(1, -1).argmax().item<int64_t>();
  }
  out << "\ndecoding " << options.steps
      << " tokens through the KV cache, one runtime call each, fed back greedily:\n";
  if (options.weights.empty()) {
    out << "            (random weights: the tokens mean nothing; pass --weights for a real "
           "continuation)\n";
  } else {
    out << "            tokens " << ids_str(std::vector<int64_t>(ids.begin() + n, ids.end()))
        << "\n";
  }
  // The first step plans memory for the one-token shape; every later one reuses that plan, so
  // the steady time per token is the median of the others.
  if (!step_ms.empty()) {
    out << "            first step " << ms_str(step_ms.front())
        << " (plans memory for one new token)";
    if (step_ms.size() > 1) {
      std::vector<double> steady(step_ms.begin() + 1, step_ms.end());
      std::nth_element(steady.begin(), steady.begin() + steady.size() / 2, steady.end());
      out << "; then " << ms_str(steady[steady.size() / 2]) << " per token (median of "
          << steady.size() << (steady.size() == 1 ? " later step)" : " later steps)");
    }
    out << "\n            each step's logits against eager over the whole prefix (no cache): "
           "largest relative diff "
        << sci(worst) << "\n";
  }
  if (!(worst <= kTolerance)) {
    out << "FAILED: a cached step's logits differ from eager's by " << sci(worst)
        << " of their largest magnitude, over the limit " << sci(kTolerance) << "\n";
    return false;
  }
  return true;
}

}  // namespace

int run_gpt2_demo(const Gpt2DemoOptions& options, std::ostream& out) {
  out << "xport demo: GPT-2 (12 layers x 768, 12 heads, vocab 50257) with a KV cache: capture, "
         "save, load, decode\n\n";
  models::Gpt2Config config;
  auto model = build_model(options, config, out);
  // "Hello, my dog is cute" in GPT-2's tokenizer.
  const std::vector<int64_t> prompt = {15496, 11, 616, 3290, 318, 13779};
  const auto room = kCachePositions - static_cast<int64_t>(prompt.size());
  XPORT_CHECK(options.steps >= 0 && options.steps <= room, InvalidInput, "xport demo: --steps ",
              options.steps, " does not fit the KV cache: give 0 to ", room);
  const ExportedProgram exported = capture_program(*model, prompt, out);
  const runtime::Program program = save_and_load(exported, options.archive, out);
  const std::optional<Tensor> prompt_logits = compare_with_eager(program, *model, prompt, out);
  if (!prompt_logits || !decode_greedily(program, *model, prompt, *prompt_logits, options, out)) {
    return 1;
  }

  // Inputs outside the contract are refused before any kernel runs.
  const int64_t too_many = kCachePositions + 1;
  const auto n = static_cast<int64_t>(prompt.size());
  const std::vector<std::pair<std::string, std::vector<Value>>> bad = {
      {std::to_string(too_many) + " tokens",
       {as_batch(std::vector<int64_t>(static_cast<size_t>(too_many), 0)),
        positions(0, too_many)}},
      {"ids of rank 1",
       {from_vector(prompt, {n}), positions(0, n)}},
      {"5 positions for 6 tokens", {as_batch(prompt), positions(0, 5)}},
  };
  return show_refusals(program, bad, out) ? 0 : 1;
}

}  // namespace xport::tools
