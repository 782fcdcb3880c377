#include "tools/xport/demo.h"

#include <chrono>
#include <cmath>
#include <iomanip>

#include "xport/models.h"
#include "xport/safetensors.h"
#include "xport/xport.h"

namespace xport::tools {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string ids_str(const std::vector<int64_t>& ids) {
  std::string s;
  for (int64_t id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

}  // namespace

int run_demo(const DemoOptions& options, std::ostream& out) {
  auto start = Clock::now();
  auto model = models::gpt2();
  const double build_ms = ms_since(start);
  out << "xport demo: GPT-2 (12 layers x 768, 12 heads, vocab 50257), run eagerly\n\n";
  if (options.weights.empty()) {
    out << "weights: seeded random initialisation (" << std::fixed << std::setprecision(0)
        << build_ms << " ms); pass --weights model.safetensors for a real checkpoint\n";
  } else {
    start = Clock::now();
    load_safetensors(*model, options.weights);
    out << "weights: " << options.weights << " (loaded in " << std::fixed << std::setprecision(0)
        << ms_since(start) << " ms)\n";
  }
  model->eval();
  int64_t params = 0;
  for (const auto& [name, t] : model->named_parameters()) params += t.int_numel();
  out << "parameters: " << params << "\n\n";

  // "Hello, my dog is cute" in GPT-2's tokenizer.
  std::vector<int64_t> ids = {15496, 11, 616, 3290, 318, 13779};
  out << "prompt token ids: " << ids_str(ids) << "\n";
  start = Clock::now();
  const Tensor logits = model->forward(from_vector(ids, {1, static_cast<int64_t>(ids.size())}));
  const double first_ms = ms_since(start);
  const Tensor last = logits.select(1, -1).select(0, 0);  // [vocab]
  const Tensor probs = last.softmax(0);
  const auto [top_p, top_id] = topk(probs, 5);
  out << "\ntop next tokens:\n";
  const std::vector<float> p = top_p.to_vector<float>();
  const std::vector<int64_t> id = top_id.to_vector<int64_t>();
  for (size_t i = 0; i < id.size(); ++i) {
    out << "  " << std::setw(6) << id[i] << "  p = " << std::setprecision(4) << p[i] << "\n";
  }
  out << "forward of " << ids.size() << " tokens: " << std::setprecision(1) << first_ms << " ms\n";

  // Greedy decoding, recomputing the whole prefix each step (no KV cache yet).
  start = Clock::now();
  std::vector<int64_t> generated;
  for (int step = 0; step < options.steps; ++step) {
    const Tensor step_logits =
        model->forward(from_vector(ids, {1, static_cast<int64_t>(ids.size())}));
    const int64_t next = step_logits.select(1, -1).argmax().item<int64_t>();
    generated.push_back(next);
    ids.push_back(next);
  }
  out << "\ngreedy continuation (" << options.steps << " tokens): " << ids_str(generated) << "\n"
      << "generation: " << std::setprecision(1) << ms_since(start) / std::max(1, options.steps)
      << " ms per token\n";
  return 0;
}

}  // namespace xport::tools
