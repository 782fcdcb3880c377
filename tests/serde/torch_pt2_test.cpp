// .pt2 files written by PyTorch 2.13 (torch.export.export + torch.export.save) load and run in
// xport: ExportedProgram::run and the runtime give PyTorch's own outputs (max |ours - torch| /
// max |torch| <= 1e-4), and refuse the inputs PyTorch refuses. A case xport cannot load or run
// must be listed with its reason in the refusals file, and must then fail with an xport::Error
// (never a crash); a listed case that works fails the test, so the list stays true. Prints one
// line per case and the counts per group.
//
// One binary, two data sets: XPORT_PT2_CASES names the directory of a manifest and
// XPORT_PT2_REFUSALS its refusals file (the torch_pt2 test: tests/serde/torch_export_cases.py and
// torch_pt2_refusals.txt; the hf_architectures test: tests/serde/hf_architectures.py and
// hf_architectures_refusals.txt).
#include <gtest/gtest.h>
#include <unistd.h>  // getpid

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "examples/custom_ops/accel_ops.h"
#include "kernels/cpu/cpu_isa.h"
#include "listed_reasons.h"
#include "xport/runtime.h"
#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr double kTolerance = 1e-4;

std::string required_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw std::runtime_error(std::string(name) + " is not set: run this test through ctest");
  }
  return value;
}

const fs::path& data_dir() {
  static const fs::path dir = required_env("XPORT_PT2_CASES");
  return dir;
}

Value leaf_value(const json& leaf) {
  if (leaf.contains("npy")) {
    const Tensor t = load_npy((data_dir() / leaf.at("npy").get<std::string>()).string());
    const DType dtype = parse_dtype(leaf.at("dtype").get<std::string>());
    return t.dtype() == dtype ? t : t.to(dtype);
  }
  const json& v = leaf.at("value");
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) return v.get<double>();
  return v.get<std::string>();
}

Tensor scalar_tensor_of(const Value& v) {
  return from_vector(std::vector<double>{v.is_bool() ? double(v.to_bool()) : v.to_double()}, {});
}

std::vector<Value> leaf_values(const json& leaves) {
  std::vector<Value> values;
  for (const json& leaf : leaves) values.push_back(leaf_value(leaf));
  return values;
}

// The tensors among `values` (the elements of lists too), in order.
std::vector<Tensor> tensors_of(const std::vector<Value>& values) {
  std::vector<Tensor> out;
  for (const Value& v : values) {
    if (v.is_tensor()) out.push_back(v.to_tensor());
    if (v.is_list()) out.insert(out.end(), v.to_tensor_list().begin(), v.to_tensor_list().end());
    if (v.is_int() || v.is_double() || v.is_bool()) out.push_back(scalar_tensor_of(v));
  }
  return out;
}

// Empty when `ours` equals PyTorch's outputs (or inputs after the call) within `tolerance`
// (relative to the largest |value|); else what differs.
std::string compare_outputs(const std::vector<Tensor>& ours, const json& expected,
                            double tolerance, const std::string& what = "output") {
  if (ours.size() != expected.size()) {
    return "xport gave " + std::to_string(ours.size()) + " " + what + "s, PyTorch " +
           std::to_string(expected.size());
  }
  for (size_t i = 0; i < ours.size(); ++i) {
    const Value want = leaf_value(expected[i]);
    const Tensor theirs = want.is_tensor() ? want.to_tensor() : scalar_tensor_of(want);
    if (ours[i].int_sizes() != theirs.int_sizes()) return what + " " + std::to_string(i) + " shape";
    const std::vector<double> a = ours[i].to_vector<double>(), b = theirs.to_vector<double>();
    double diff = 0, peak = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      if (std::isnan(a[k]) && std::isnan(b[k])) continue;
      diff = std::max(diff, std::fabs(a[k] - b[k]));
      peak = std::max(peak, std::fabs(b[k]));
    }
    if (std::isnan(diff) || diff > tolerance * std::max(peak, 1e-30)) {
      return what + " " + std::to_string(i) + ": max diff " + std::to_string(diff) +
             " against max |torch| " + std::to_string(peak);
    }
  }
  return "";
}

struct Outcome {
  bool loaded = false;
  int runs = 0, equal = 0;
  bool refused_like_torch = true;
  std::string problem;  // the first thing that went wrong
  runtime::PlanStats plan;  // the runtime's plan for the first run's inputs
};

Outcome run_case(const json& c) {
  Outcome o;
  // A quantized program's case states its own bound (tests/quant/pt2e_cases.py).
  const double tolerance = c.value("tolerance", kTolerance);
  const std::string path = (data_dir() / c.at("pt2").get<std::string>()).string();
  try {
    const ExportedProgram program = load(path);
    const runtime::Program compiled = runtime::Program::load(path);
    o.loaded = true;
    // xport's writer takes PyTorch's graphs too: saved again (before any run updates the
    // program's buffers) and reloaded, the program gives the same outputs. The file is this
    // process's: two data sets run at once may hold cases of one name (bert_dynamic).
    const fs::path again = fs::temp_directory_path() /
                           ("xport_torch_pt2_" + std::to_string(::getpid()) + "_" +
                            c.at("name").get<std::string>() + ".pt2");
    save(program, again.string());
    const ExportedProgram reloaded = load(again.string());
    fs::remove(again);
    for (const json& run : c.at("runs")) {
      // Inputs are read afresh for each engine: a program may update them in place, and must
      // leave in them what PyTorch's call left.
      std::vector<Value> inputs = leaf_values(run.at("inputs"));
      std::string exported = compare_outputs(program.run(inputs), run.at("outputs"), tolerance);
      if (exported.empty() && run.contains("inputs_after")) {
        exported =
            compare_outputs(tensors_of(inputs), run.at("inputs_after"), tolerance, "input");
      }
      inputs = leaf_values(run.at("inputs"));
      std::string runtime =
          compare_outputs(compiled.run_values(inputs), run.at("outputs"), tolerance);
      if (runtime.empty() && run.contains("inputs_after")) {
        runtime = compare_outputs(tensors_of(inputs), run.at("inputs_after"), tolerance, "input");
      }
      ++o.runs;
      if (exported.empty() && runtime.empty()) {
        ++o.equal;
      } else if (o.problem.empty()) {
        o.problem = "run " + std::to_string(o.runs - 1) + ": ExportedProgram::run: " +
                    (exported.empty() ? "equal" : exported) +
                    "; runtime: " + (runtime.empty() ? "equal" : runtime);
      }
    }
    // The runtime plans every archive (composite ops run as their decomposition, a step of
    // the plan); the interpreter is only the reference.
    o.plan = compiled.plan_stats(leaf_values(c.at("runs").at(0).at("inputs")));
    if (o.problem.empty() && !o.plan.planned) {
      o.problem = "the runtime interprets it: " + o.plan.unplanned_reason;
    }
    if (o.problem.empty()) {
      const json& run = c.at("runs").at(0);
      const std::string resaved = compare_outputs(reloaded.run(leaf_values(run.at("inputs"))),
                                                  run.at("outputs"), tolerance);
      if (!resaved.empty()) o.problem = "saved by xport and reloaded: " + resaved;
    }
    if (c.contains("refused_inputs")) {
      const std::vector<Value> bad = leaf_values(c.at("refused_inputs"));
      for (int engine = 0; engine < 2; ++engine) {
        try {
          engine == 0 ? program.run(bad) : compiled.run_values(bad);
          o.refused_like_torch = false;
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::InvalidInput) o.refused_like_torch = false;
        }
      }
      if (!o.refused_like_torch && o.problem.empty())
        o.problem = "accepted inputs PyTorch refuses (" + c.value("refused_error", "") + ")";
    }
  } catch (const Error& e) {
    o.problem = std::string(o.loaded ? "run" : "load") + ": " + e.what();
  }
  return o;
}

TEST(TorchPt2, ArchivesFromTorchExportLoadAndRunLikePyTorch) {
  // The custom_op group's archives call accel::conv2d, registered in C++ as PyTorch's side
  // registered it through torch.library (tests/serde/custom_ops.py).
  accel::register_ops();
  const int64_t accel_calls = accel::conv2d_calls();
  json manifest;
  std::ifstream in(data_dir() / "manifest.json");
  ASSERT_TRUE(in) << "no manifest in " << data_dir() << " (the torch_pt2_data fixture writes it)";
  in >> manifest;
  const std::string refusals_file = required_env("XPORT_PT2_REFUSALS");
  std::map<std::string, std::string> refusals = testing::listed_reasons(refusals_file);
  int cases = 0, loaded = 0, ran = 0, equal = 0, refused = 0;
  std::map<std::string, runtime::PlanStats> plans;
  std::map<std::string, std::pair<int, int>> per_group;  // group: (equal, cases)
  for (const json& c : manifest.at("cases")) {
    const std::string name = c.at("name");
    const Outcome o = run_case(c);
    plans[name] = o.plan;
    ++cases;
    loaded += o.loaded;
    const bool ok = o.problem.empty();
    ran += o.loaded && o.runs == static_cast<int>(c.at("runs").size());
    equal += ok;
    auto& [group_equal, group_cases] = per_group[c.at("group").get<std::string>()];
    group_equal += ok;
    ++group_cases;
    const auto listed = refusals.find(name);
    if (listed == refusals.end()) {
      EXPECT_TRUE(ok) << name << " (" << c.at("group").get<std::string>() << "): " << o.problem;
      std::cout << (ok ? "equal    " : "FAILED   ") << name << "\n";
    } else {
      ++refused;
      EXPECT_FALSE(ok) << name << " is listed in " << refusals_file
                       << " but now works: remove the line";
      std::cout << "refused  " << name << ": " << listed->second << "\n         xport: "
                << o.problem.substr(0, 300) << "\n";
      refusals.erase(listed);
    }
  }
  for (const auto& [name, reason] : refusals)
    ADD_FAILURE() << name << " is listed in " << refusals_file << " but is no case";
  for (const json& n : manifest.at("not_exported")) {
    std::cout << "not exported by PyTorch  " << n.at("name").get<std::string>() << ": "
              << n.at("reason").get<std::string>() << "\n";
  }
  std::cout << cases << " PyTorch archives: " << loaded << " loaded, " << ran << " ran, " << equal
            << " equal to PyTorch, " << refused << " refused with a listed reason\n";
  for (const auto& [group, counts] : per_group)
    std::cout << "  " << group << ": " << counts.first << " of " << counts.second << " equal\n";
  // PyTorch's composites with constant weights run on packed weights, as the decomposed
  // program's matrix products and convolutions do: every aten::conv2d of a ResNet with its
  // batch norm folded in, every aten::linear of a BERT (Hugging Face's set has resnet_static).
  using Fused = std::vector<std::pair<std::string, std::string>>;
  // PT2E's quantized layers multiply integers. With static quantization, a linear layer before
  // a quantize (through a ReLU, or a GELU and eval dropout) quantizes its own result, and so
  // does a convolution (through a residual add, a ReLU, both or neither); a result only such
  // convolutions read stays NHWC. X86's quantizer leaves the add to the convolution, XNNPACK's
  // quantizes the convolution's result before it, which the convolution's post-ops then do
  // (and the max pool's input: it pools the integers). The CNN's first convolution has weights
  // small enough to be folded to float32 constants at load, and runs in float; XNNPACK's dynamic
  // configuration leaves two convolutions in float.
  // Without VNNI the integer convolutions compute in float, on NCHW.
  const std::string nhwc = xport::kernels::cpu::onednn_exact_int8() ? "3" : "0";
  const Fused fused =
      per_group.count("pt2e") != 0
          ? Fused{{"mlp_x86_static", "3 matrix products on int8 weights (PT2E's quantized "
                                     "layers; 2 quantizing their own results)"},
                  {"mlp_xnnpack_dynamic", "3 matrix products on int8 weights (PT2E's quantized "
                                          "layers; 0 quantizing"},
                  {"cnn_x86_static", "4 convolutions on int8 weights (PT2E's quantized layers; 4 "
                                     "quantizing their own results, 2 adding their residual (1 "
                                     "written over it); " + nhwc + " results passed on in NHWC)"},
                  {"cnn_xnnpack_static", "4 convolutions on int8 weights (PT2E's quantized "
                                         "layers; 4 quantizing their own results, 2 adding "
                                         "their residual"},
                  {"cnn_xnnpack_static", "2 quantized adds (dequantize, add, [ReLU,] quantize: "
                                         "2 in the convolution before them"},
                  {"cnn_xnnpack_static", "1 views, copies and max pools on 8-bit integers"},
                  {"cnn_xnnpack_dynamic", "2 convolutions on int8 weights (PT2E's quantized "
                                          "layers; 0 quantizing their own results"},
                  // torchao's weight-only programs: every linear layer (4 a block, 2 blocks,
                  // the head) on its integer weights.
                  {"decoder_torchao_int8_weight_core",
                   "9 matrix products of float inputs by integer weights"},
                  {"decoder_torchao_int4_weight_core",
                   "9 matrix products of float inputs by integer weights"},
                  // ExecuTorch's LLM recipes: activations quantized and dequantized per token,
                  // the products on int4 (in groups) or int8 (per row) weights.
                  {"decoder_torchao_8da4w_core",
                   "9 matrix products of float inputs by integer weights"},
                  {"decoder_torchao_8da8w_core",
                   "9 matrix products of float inputs by integer weights"},
                  // Hugging Face's GPT-2, its Conv1D layers as nn.Linear: every one.
                  {"gpt2_torchao_int8_weight_core",
                   "9 matrix products of float inputs by integer weights"},
                  {"gpt2_torchao_int4_weight_core",
                   "9 matrix products of float inputs by integer weights"}}
      : plans.count("resnet_static")
          ? Fused{{"resnet_static", "8 convolutions on packed weights (8 batch norms folded in"},
                  {"bert_static", "13 matrix products on packed weights"}}
          : Fused{{"resnet50_static", "53 convolutions on packed weights (53 batch norms folded"},
                  {"bert_static", "48 matrix products on packed weights (12 activations"}};
  for (const auto& [name, what] : fused) {
    ASSERT_TRUE(plans.count(name)) << name << " is no case of " << data_dir();
    EXPECT_NE(plans[name].fusion.find(what), std::string::npos) << name << ": "
                                                                << plans[name].str();
  }
  if (per_group.count("custom_op") != 0) {
    EXPECT_GT(accel::conv2d_calls(), accel_calls) << "no archive ran accel::conv2d's kernel";
  }
  // The quantized programs in core ATen (run_decompositions, as aot::compile and the ONNX
  // exporter see them: addmm over a transposed weight) multiply integers as well, with the same
  // results.
  if (per_group.count("pt2e") != 0) {
    for (const json& c : manifest.at("cases")) {
      const auto wanted = std::find_if(fused.begin(), fused.end(),
                                       [&c](const auto& f) { return f.first == c.at("name"); });
      if (wanted == fused.end()) continue;
      const runtime::Program core = runtime::Program::from_exported(
          load((data_dir() / c.at("pt2").get<std::string>()).string()).run_decompositions());
      const json& run = c.at("runs").at(0);
      const runtime::PlanStats plan = core.plan_stats(leaf_values(run.at("inputs")));
      EXPECT_NE(plan.fusion.find(wanted->second), std::string::npos)
          << wanted->first << " in core ATen: " << plan.str();
      EXPECT_EQ(compare_outputs(core.run_values(leaf_values(run.at("inputs"))), run.at("outputs"),
                                c.at("tolerance").get<double>()),
                "")
          << wanted->first << " in core ATen";
    }
  }
}

}  // namespace
}  // namespace xport
