// Eager forward of the reference models (include/xport/nn/models.h, random weights, eval mode), one
// benchmark per case: BM_model/<case>. bench/compare_models.py runs the same cases in PyTorch,
// counts their FLOPs and prints the table; it sets --benchmark_min_time (Google Benchmark's
// default, 0.5 s, applies when run alone).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "xport/nn/models.h"
#include "xport/xport.h"

#include "../model_inputs.h"

namespace {

using xport::Tensor;

struct ModelCase {
  const char* name;
  std::function<std::shared_ptr<xport::nn::Module>()> build;
  std::function<Tensor()> input;
};

const std::vector<ModelCase>& model_cases() {
  static const std::vector<ModelCase> cases = {
      {"mlp_b32",
       [] {
         return xport::models::mlp({1024, 4096, 4096, 1024});
       },
       [] {
         return xport::randn({32, 1024}, 1);
       }},
      {"resnet18_b1", [] { return xport::models::resnet18(); },
       [] {
         return xport::randn({1, 3, 224, 224}, 1);
       }},
      {"resnet50_b1", [] { return xport::models::resnet50(); },
       [] {
         return xport::randn({1, 3, 224, 224}, 1);
       }},
      {"resnet50_b8", [] { return xport::models::resnet50(); },
       [] {
         return xport::randn({8, 3, 224, 224}, 1);
       }},
      {"bert_b1_t128", [] { return xport::models::bert_encoder(); },
       [] {
         return xport::randn({1, 128, 768}, 1);
       }},
      {"bert_b8_t128", [] { return xport::models::bert_encoder(); },
       [] {
         return xport::randn({8, 128, 768}, 1);
       }},
      {"gpt2_b1_t128", [] { return xport::models::gpt2(); },
       [] { return xport::bench::token_ids(1, 128, xport::models::Gpt2Config{}.vocab_size); }},
  };
  return cases;
}

struct Prepared {
  std::shared_ptr<xport::nn::Module> model;
  Tensor input;
};

// Google Benchmark calls the function several times per case (to size the iteration count), so
// each model is built, and warmed up by one forward, once per process.
Prepared& prepare(const ModelCase& c) {
  static std::map<std::string, Prepared> prepared;
  auto it = prepared.find(c.name);
  if (it == prepared.end()) {
    Prepared p{c.build(), c.input()};
    p.model->eval();
    benchmark::DoNotOptimize(p.model->forward(p.input));
    it = prepared.emplace(c.name, std::move(p)).first;
  }
  return it->second;
}

void BM_model(benchmark::State& state, const ModelCase& c) {
  Prepared& p = prepare(c);
  for (auto _ : state) benchmark::DoNotOptimize(p.model->forward(p.input));
}

const bool kRegistered = [] {
  for (const ModelCase& c : model_cases()) {
    benchmark::RegisterBenchmark((std::string("BM_model/") + c.name).c_str(), BM_model, c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace
