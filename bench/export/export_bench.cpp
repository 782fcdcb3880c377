// Export time of the reference models (include/xport/nn/models.h, random weights, eval mode): one
// benchmark per case, BM_export/<case>, timing one whole export_program call on a model built once
// per process. Counters: `nodes`, the exported graph's node count, and `calls`, its op calls.
// bench/compare_export.py runs it beside torch.jit.trace and torch.fx.symbolic_trace of the same
// models.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "xport/capture/export.h"
#include "xport/ir/ir.h"
#include "xport/nn/models.h"
#include "xport/program/exported_program.h"
#include "xport/xport.h"

#include "../model_inputs.h"

namespace {

using xport::Dim;
using xport::ExportOptions;
using xport::Tensor;

struct ExportCase {
  const char* name;
  std::function<std::shared_ptr<xport::nn::Module>()> build;
  std::function<Tensor()> input;
  std::vector<xport::DimSpec> dynamic_shapes;  // empty: all dims static
};

std::shared_ptr<xport::nn::Module> build_mlp() {
  return xport::models::mlp({1024, 4096, 4096, 1024});
}
std::shared_ptr<xport::nn::Module> build_resnet18() { return xport::models::resnet18(); }
std::shared_ptr<xport::nn::Module> build_resnet50() { return xport::models::resnet50(); }
std::shared_ptr<xport::nn::Module> build_bert() { return xport::models::bert_encoder(); }
std::shared_ptr<xport::nn::Module> build_gpt2() { return xport::models::gpt2(); }

Tensor mlp_input() { return xport::randn({32, 1024}, 1); }
Tensor image(int64_t batch) { return xport::randn({batch, 3, 224, 224}, 1); }
Tensor hidden_states(int64_t batch) { return xport::randn({batch, 128, 768}, 1); }
Tensor gpt2_ids(int64_t batch) {
  return xport::bench::token_ids(batch, 128, xport::models::Gpt2Config{}.vocab_size);
}

const std::vector<ExportCase>& export_cases() {
  // Dynamic dims are at least 2, so the dynamic cases trace a batch of 2.
  static const std::vector<ExportCase> cases = {
      {"mlp", build_mlp, mlp_input, {}},
      {"resnet18", build_resnet18, [] { return image(1); }, {}},
      {"resnet50", build_resnet50, [] { return image(1); }, {}},
      {"bert", build_bert, [] { return hidden_states(1); }, {}},
      {"gpt2", build_gpt2, [] { return gpt2_ids(1); }, {}},
      {"mlp_dynamic", build_mlp, mlp_input, {{{0, Dim("batch")}}}},
      {"resnet50_dynamic", build_resnet50, [] { return image(2); }, {{{0, Dim("batch")}}}},
      {"bert_dynamic",
       build_bert,
       [] { return hidden_states(2); },
       {{{0, Dim("batch")}, {1, Dim("seq")}}}},
      {"gpt2_dynamic",
       build_gpt2,
       [] { return gpt2_ids(2); },
       {{{0, Dim("batch")}, {1, Dim("seq", 2, 1024)}}}},
  };
  return cases;
}

struct Prepared {
  std::shared_ptr<xport::nn::Module> model;
  Tensor input;
  std::string error;  // from the warm-up export; the case is skipped with it
};

xport::ExportedProgram export_case(const ExportCase& c, const Prepared& p) {
  ExportOptions options;
  options.dynamic_shapes = c.dynamic_shapes;
  return xport::export_program(
      *p.model, [&](const Tensor& x) { return p.model->forward(x); }, {p.input}, options);
}

// Google Benchmark calls the function several times per case (to size the iteration count), so
// each model is built, and exported once as a warm-up, once per process.
Prepared& prepare(const ExportCase& c) {
  static std::map<std::string, Prepared> prepared;
  auto it = prepared.find(c.name);
  if (it == prepared.end()) {
    Prepared p{c.build(), c.input(), ""};
    p.model->eval();
    try {
      export_case(c, p);
    } catch (const xport::Error& e) {
      p.error = e.what();
    }
    it = prepared.emplace(c.name, std::move(p)).first;
  }
  return it->second;
}

void BM_export(benchmark::State& state, const ExportCase& c) {
  Prepared& p = prepare(c);
  if (!p.error.empty()) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  for (auto _ : state) {
    const xport::ExportedProgram program = export_case(c, p);
    benchmark::DoNotOptimize(&program);
  }
  // The graph's size, counted outside the timed loop: all nodes, and the op calls among them.
  const xport::ExportedProgram program = export_case(c, p);
  const auto& nodes = program.graph().nodes();
  const auto calls = std::count_if(nodes.begin(), nodes.end(), [](const auto& n) {
    return n->kind() == xport::ir::NodeKind::Call;
  });
  state.counters["nodes"] = static_cast<double>(nodes.size());
  state.counters["calls"] = static_cast<double>(calls);
}

const bool kRegistered = [] {
  for (const ExportCase& c : export_cases()) {
    benchmark::RegisterBenchmark((std::string("BM_export/") + c.name).c_str(), BM_export, c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return true;
}();

}  // namespace
