#include "soundness_oracle.h"

#include "torch_program.h"
#include "xport/aot/aot.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <functional>
#include <future>
#include <iterator>
#include <random>
#include <sstream>

namespace xport::soundness {
namespace {

using Engine = std::function<std::vector<Tensor>(const std::vector<Value>&)>;

std::vector<Value> values_of(const std::vector<Tensor>& ts) {
  return std::vector<Value>(ts.begin(), ts.end());
}

std::vector<Tensor> clones(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.clone());
  return out;
}

std::string shape_str(const Tensor& t) {
  std::ostringstream out;
  out << "[";
  const auto sizes = t.int_sizes();
  for (size_t i = 0; i < sizes.size(); ++i) out << (i ? ", " : "") << sizes[i];
  return out.str() + "] " + dtype_name(t.dtype());
}

std::string sets_str(const std::vector<Tensor>& ts) {
  std::string out;
  for (size_t i = 0; i < ts.size(); ++i) out += (i ? ", " : "") + shape_str(ts[i]);
  return out;
}

// Equal sizes and dtypes; values within 1e-4 of the larger magnitude, at least `min_scale`
// (fusion reorders float sums), NaN where the other has NaN. Empty when equal, else what differs.
std::string difference(const Tensor& got, const Tensor& want, double min_scale = 1) {
  if (got.int_sizes() != want.int_sizes() || got.dtype() != want.dtype()) {
    return "got " + shape_str(got) + ", eager gives " + shape_str(want);
  }
  if (want.int_numel() == 0) return "";
  const Tensor g = got.to(DType::Float64).contiguous(), w = want.to(DType::Float64).contiguous();
  const auto* gp = static_cast<const double*>(g.raw_data());
  const auto* wp = static_cast<const double*>(w.raw_data());
  double scale = min_scale, worst = 0;
  for (int64_t i = 0; i < w.int_numel(); ++i) {
    if (std::isfinite(wp[i])) scale = std::max(scale, std::abs(wp[i]));
  }
  for (int64_t i = 0; i < w.int_numel(); ++i) {
    if (std::isnan(wp[i]) != std::isnan(gp[i]) || std::isinf(wp[i]) != std::isinf(gp[i])) {
      return "element " + std::to_string(i) + ": " + std::to_string(gp[i]) + " vs eager's " +
             std::to_string(wp[i]);
    }
    if (std::isfinite(wp[i])) worst = std::max(worst, std::abs(gp[i] - wp[i]));
  }
  if (worst > 1e-4 * scale) {
    return "max |difference| " + std::to_string(worst) + " (scale " + std::to_string(scale) + ")";
  }
  return "";
}

// Whether an error names something of the user's: an input (x0, x1, ...) or a Dim.
bool names_the_user(const std::string& message, const ProgramSpec& spec) {
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    if (message.find("x" + std::to_string(i)) != std::string::npos) return true;
  }
  for (const DimRange& r : spec.dims) {
    if (message.find("'" + r.name + "'") != std::string::npos ||
        message.find("\"" + r.name + "\"") != std::string::npos) {
      return true;
    }
  }
  return false;
}

// Random sizes for each Dim inside its range: the ends often, small values mostly.
std::vector<int64_t> inside_values(const ProgramSpec& spec, std::mt19937_64& rng) {
  std::vector<int64_t> v;
  for (const DimRange& r : spec.dims) {
    const int pick = std::uniform_int_distribution<int>(0, 5)(rng);
    if (pick == 0) {
      v.push_back(r.min);
    } else if (pick == 1) {
      v.push_back(r.max);
    } else {
      v.push_back(std::uniform_int_distribution<int64_t>(r.min, std::min(r.max, r.min + 7))(rng));
    }
  }
  return v;
}

std::vector<Tensor> random_inputs(const std::vector<std::vector<int64_t>>& sizes, uint64_t seed) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < sizes.size(); ++i) {
    out.push_back(randn(std::vector<SymInt>(sizes[i].begin(), sizes[i].end()), seed + i));
  }
  return out;
}

// Input sets just outside the contract: a Dim one past each end of its range, a shared Dim's
// occurrences made unequal, a wrong dtype, a wrong rank.
std::vector<std::pair<std::string, std::vector<Tensor>>> outside_sets(const ProgramSpec& spec,
                                                                      uint64_t seed) {
  std::vector<std::pair<std::string, std::vector<Tensor>>> out;
  std::vector<int64_t> base;
  for (const DimRange& r : spec.dims) base.push_back(std::min(r.max, r.min + 1));
  for (size_t d = 0; d < spec.dims.size(); ++d) {
    bool used = false;
    for (const Shape& s : spec.inputs) {
      for (const DimTerm& t : s) used |= t.root == static_cast<int>(d);
    }
    if (!used) continue;
    for (int64_t past : {spec.dims[d].min - 1, spec.dims[d].max + 1}) {
      if (past < 0) continue;
      std::vector<int64_t> v = base;
      v[d] = past;
      out.emplace_back("Dim '" + spec.dims[d].name + "' = " + std::to_string(past),
                       random_inputs(input_sizes(spec, v), seed));
    }
  }
  // Two places of one Dim made unequal: the second occurrence one larger.
  const std::vector<std::vector<int64_t>> sizes = input_sizes(spec, base);
  for (size_t d = 0; d < spec.dims.size(); ++d) {
    int seen = 0;
    for (size_t i = 0; i < spec.inputs.size() && seen < 2; ++i) {
      for (size_t k = 0; k < spec.inputs[i].size() && seen < 2; ++k) {
        if (spec.inputs[i][k].root != static_cast<int>(d) || ++seen < 2) continue;
        std::vector<std::vector<int64_t>> broken = sizes;
        broken[i][k] += 1;
        out.emplace_back("Dim '" + spec.dims[d].name + "' unequal at x" + std::to_string(i),
                         random_inputs(broken, seed));
      }
    }
  }
  std::vector<Tensor> wrong_dtype = random_inputs(sizes, seed);
  wrong_dtype[0] = wrong_dtype[0].to(DType::Float64);
  out.emplace_back("x0 as float64", wrong_dtype);
  std::vector<Tensor> wrong_rank = random_inputs(sizes, seed);
  wrong_rank[0] = wrong_rank[0].unsqueeze(0);
  out.emplace_back("x0 with one more dim", wrong_rank);
  return out;
}

std::string temp_path() {
  static std::atomic<int> counter{0};
  return (std::filesystem::temp_directory_path() /
          ("xport-soundness-" + std::to_string(::getpid()) + "-" +
           std::to_string(counter++) + ".pt2"))
      .string();
}

using json = nlohmann::json;

json leaves_json(const std::vector<Tensor>& ts, const std::string& dir, const std::string& stem) {
  json out = json::array();
  for (size_t i = 0; i < ts.size(); ++i) {
    const std::string file = stem + std::to_string(i) + ".npy";
    save_npy(ts[i], (std::filesystem::path(dir) / file).string());
    out.push_back({{"npy", file}, {"dtype", dtype_name(ts[i].dtype())},
                   {"shape", ts[i].int_sizes()}});
  }
  return out;
}

// An inside set as xport's eager ran it: its outputs and inputs after the run, or refused.
struct EagerRun {
  std::vector<Tensor> inputs;
  bool ok = false;
  std::vector<Tensor> outputs, inputs_after;
  bool near_threshold = false;  // a data-dependent condition within rounding of its threshold
  double sin_argument_scale = 0;  // FuzzModule::sin_argument_scale: other engines' outputs are
                                  // compared at least at this scale
  bool near_float_limit = false;  // a value past kNearFloatLimit (near_float_limit())
};

// Float32 overflows at 3.4e38: a sum over up to 1e6 elements (the generator's bound) of values
// past 1e30 may overflow in one engine's order and not in another's, rightly.
constexpr double kNearFloatLimit = 1e30;

// Whether a float value among `ts` is finite and past kNearFloatLimit in magnitude.
bool near_float_limit(const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) {
    if (!is_floating(t.dtype()) || t.int_numel() == 0) continue;
    const Tensor a = t.to(DType::Float64).contiguous();
    const auto* p = static_cast<const double*>(a.raw_data());
    for (int64_t i = 0; i < a.int_numel(); ++i) {
      if (std::isfinite(p[i]) && std::abs(p[i]) > kNearFloatLimit) return true;
    }
  }
  return false;
}

// An engine's outputs and inputs after a run against eager's (`eager_name` in messages), at
// least at `min_scale` (difference()).
Finding compare_values(const std::string& who, const std::string& eager_name,
                       const std::string& where, const std::vector<Tensor>& outputs,
                       const std::vector<Tensor>& inputs_after, const EagerRun& eager,
                       double min_scale) {
  if (outputs.size() != eager.outputs.size()) {
    return {who + ": output count", std::to_string(outputs.size()) + " outputs, " + eager_name +
                                        " gives " + std::to_string(eager.outputs.size())};
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (std::string d = difference(outputs[i], eager.outputs[i], min_scale); !d.empty()) {
      return {who + " differs from " + eager_name,
              where + ", output " + std::to_string(i) + ": " + d};
    }
  }
  for (size_t i = 0; i < inputs_after.size(); ++i) {
    if (std::string d = difference(inputs_after[i], eager.inputs_after[i], min_scale);
        !d.empty()) {
      return {who + ": an updated input differs from " + eager_name,
              where + ", x" + std::to_string(i) + ": " + d};
    }
  }
  return {};
}

// One engine's run of an inside set, against xport's eager's run of it: the same refusal, or
// the same outputs and the inputs updated alike.
Finding check_inside(const std::string& name, const Engine& run, const EagerRun& eager,
                     Stats& stats) {
  const std::string where = "inputs " + sets_str(eager.inputs);
  std::vector<Tensor> mine = clones(eager.inputs);
  std::vector<Tensor> got;
  try {
    got = run(values_of(mine));
  } catch (const Error& e) {
    if (eager.ok) return {name + " refuses an input inside the contract", where + ": " + e.what()};
    ++stats.engine_runs[name];
    return {};
  } catch (const std::exception& e) {
    return {name + " crashed", where + ": " + e.what()};
  }
  if (!eager.ok) return {name + " runs an input eager refuses", where};
  if (Finding f = compare_values(name, "eager", where, got, mine, eager, 1)) return f;
  ++stats.engine_runs[name];
  return {};
}

// One engine's run of a set outside the contract: refused with InvalidInput naming an input or
// a Dim, and nothing written.
Finding check_outside(const std::string& name, const Engine& run, const std::string& what,
                      const std::vector<Tensor>& bad, const ProgramSpec& spec, Stats& stats) {
  std::vector<Tensor> mine = clones(bad);
  try {
    run(values_of(mine));
    return {name + " runs an input outside the contract", what + ": inputs " + sets_str(bad)};
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::InvalidInput) {
      return {name + " refuses an input outside the contract with " + to_string(e.kind()) +
                  ", not InvalidInput",
              what + ": " + e.what()};
    }
    if (!names_the_user(e.what(), spec)) {
      return {name + ": a refusal that names neither an input nor a Dim", e.what()};
    }
  } catch (const std::exception& e) {
    return {name + " crashed on an input outside the contract", what + ": " + e.what()};
  }
  for (size_t i = 0; i < bad.size(); ++i) {
    if (!difference(mine[i], bad[i]).empty()) return {name + " wrote to an input it refused", what};
  }
  ++stats.engine_runs[name];
  return {};
}

// One engine's runs of the inside sets against xport's eager, run by run, up to the first set
// xport's eager refuses when `stop_at_refusal` (ONNX cannot refuse, and its buffers go apart),
// and up to the first set whose data-dependent condition xport's eager found within rounding of
// its threshold (the engines may rightly take different branches from there) or whose values
// came near float32's limit (a sum may rightly overflow in one order and not in another).
Finding compare_runs(const std::string& who, const std::vector<EagerRun>& runs,
                     const std::vector<TorchOracle::Run>& theirs, const TorchOracle& oracle,
                     bool stop_at_refusal, int64_t& pairs, int64_t* own_refusals) {
  if (theirs.size() != runs.size()) {
    return {who + " cannot run the program", std::to_string(theirs.size()) + " runs answered"};
  }
  for (size_t k = 0; k < runs.size(); ++k) {
    if (stop_at_refusal && !runs[k].ok) break;
    if (runs[k].near_threshold || runs[k].near_float_limit) break;
    const std::string where = "inputs " + sets_str(runs[k].inputs);
    if (theirs[k].error && runs[k].ok) {
      if (own_refusals != nullptr && oracle.pytorch_own(*theirs[k].error)) {
        ++*own_refusals;  // and its buffer goes apart from here: the rest is not compared
        return {};
      }
      return {who + " raises on an input xport's eager runs", where + ": " + *theirs[k].error};
    }
    if (!theirs[k].error && !runs[k].ok) {
      return {who + " runs an input xport's eager refuses", where};
    }
    ++pairs;
    if (theirs[k].error) continue;
    const double scale = std::max(1.0, runs[k].sin_argument_scale);
    if (Finding f = compare_values(who, "xport's eager", where, theirs[k].outputs,
                                   theirs[k].inputs_after, runs[k], scale)) {
      return f;
    }
  }
  return {};
}

// The program's inside sets in PyTorch's eager, and its ONNX file in ONNX Runtime where
// offer_onnx wrote one, against xport's eager.
Finding compare_with_torch(TorchOracle& oracle, const ProgramSpec& spec,
                           const std::vector<EagerRun>& runs) {
  oracle.near_threshold += std::any_of(runs.begin(), runs.end(),
                                       [](const EagerRun& r) { return r.near_threshold; });
  oracle.near_float_limit += std::any_of(runs.begin(), runs.end(),
                                         [](const EagerRun& r) { return r.near_float_limit; });
  std::vector<std::vector<Tensor>> sets;
  for (const EagerRun& r : runs) sets.push_back(r.inputs);
  TorchOracle::Answer answer;
  try {
    answer = oracle.run(spec, sets);
  } catch (const std::exception& e) {
    return {std::string(kTorchOracle) + " cannot run the program", e.what()};
  }
  if (answer.onnx_refused && answer.onnx_refused->kind() == ErrorKind::Internal) {
    return {std::string(kOnnxEngine) + ": export failed", answer.onnx_refused->what()};
  }
  if (answer.onnx_ran) {
    if (Finding f = compare_runs(kOnnxEngine, runs, answer.onnx, oracle, true,
                                 oracle.onnx_pairs, nullptr)) {
      return f;
    }
  }
  return compare_runs(kTorchOracle, runs, answer.torch, oracle, false, oracle.pairs,
                      &oracle.own_refusals);
}

void write_torch_case(TorchCases& out, const ProgramSpec& spec, const ExportedProgram& ep,
                      const std::string& archive, const std::vector<EagerRun>& eager_runs,
                      const std::vector<std::vector<Tensor>>& refused) {
  const std::string name = "p" + std::to_string(spec.seed);
  std::filesystem::create_directories(std::filesystem::path(out.dir) / name);
  std::filesystem::copy_file(archive, std::filesystem::path(out.dir) / name / "model.pt2",
                             std::filesystem::copy_options::overwrite_existing);
  json c = {{"name", name}, {"group", "soundness"}, {"pt2", name + "/model.pt2"}};
  c["runs"] = json::array();
  std::vector<EagerRun> runs;  // the sets eager ran; those it refused are not PyTorch's to run
  std::copy_if(eager_runs.begin(), eager_runs.end(), std::back_inserter(runs),
               [](const EagerRun& r) { return r.ok; });
  for (size_t k = 0; k < runs.size(); ++k) {
    const std::string stem = name + "/run" + std::to_string(k);
    c["runs"].push_back({{"inputs", leaves_json(runs[k].inputs, out.dir, stem + "_in")},
                         {"outputs", leaves_json(runs[k].outputs, out.dir, stem + "_out")},
                         {"inputs_after",
                          leaves_json(runs[k].inputs_after, out.dir, stem + "_after")}});
  }
  c["refused_inputs"] = json::array();
  for (size_t k = 0; k < refused.size(); ++k) {
    c["refused_inputs"].push_back(
        leaves_json(refused[k], out.dir, name + "/refused" + std::to_string(k) + "_in"));
  }
  c["range_constraints"] = json::object();
  for (const auto& [symbol, range] : ep.range_constraints()) {
    c["range_constraints"][symbol] = {
        range.lo, range.hi == sym::Range::kPosInf ? json(nullptr) : json(range.hi)};
  }
  out.cases.push_back(c.dump());
  ++out.written;
}

// The program in PyTorch with its example and eager's outputs, and xport's verdict: "exported",
// or the kind and first line of the export's error.
void write_acceptance_case(AcceptanceCases& out, const ProgramSpec& spec,
                           const std::vector<Tensor>& example, const std::vector<Tensor>& outputs,
                           const std::optional<Error>& refusal) {
  const std::string name = "p" + std::to_string(spec.seed);
  std::filesystem::create_directories(std::filesystem::path(out.dir) / name);
  std::ofstream(std::filesystem::path(out.dir) / name / "program.py") << torch_source(spec);
  json c = {{"name", name}, {"program", name + "/program.py"},
            {"inputs", leaves_json(example, out.dir, name + "/example_in")},
            {"outputs", leaves_json(outputs, out.dir, name + "/eager_out")}};
  c["splits_range"] = std::any_of(spec.steps.begin(), spec.steps.end(), [](const Step& s) {
    return s.splits_range && !s.disabled;
  });
  // Each Dim's range and each input's sizes: a number, or [k, "n"] for k * n.
  for (const DimRange& r : spec.dims) c["dims"][r.name] = {r.min, r.max};
  c["shapes"] = json::array();
  for (const Shape& shape : spec.inputs) {
    json sizes = json::array();
    for (const DimTerm& t : shape) {
      const std::string& dim = t.root < 0 ? "" : spec.dims[static_cast<size_t>(t.root)].name;
      sizes.push_back(t.root < 0 ? json(t.size) : json{t.coefficient, dim});
    }
    c["shapes"].push_back(sizes);
  }
  if (refusal) {
    const std::string message = refusal->what();
    c["xport"] = {{"exported", false}, {"kind", to_string(refusal->kind())},
                  {"message", message}};
  } else {
    c["xport"] = {{"exported", true}};
  }
  out.cases.push_back(c.dump());
}

void write_manifest(const std::string& dir, const std::vector<std::string>& cases) {
  json manifest = {{"cases", json::array()}};
  for (const std::string& c : cases) manifest["cases"].push_back(json::parse(c));
  std::filesystem::create_directories(dir);
  std::ofstream(std::filesystem::path(dir) / "manifest.json") << manifest.dump(1) << "\n";
}

}  // namespace

void TorchCases::finish() const { write_manifest(dir, cases); }
void AcceptanceCases::finish() const { write_manifest(dir, cases); }

// The library being compiled (by `compiling`) as two engines, the C++ entrance this build
// calls and the C ABI a host of another build would (another model of the same library, with
// state of its own), each run on eager's inside sets in their order, with the outside sets
// before the last one, as check_program runs the others.
Finding check_compiled(std::future<void>& compiling, const std::string& library, AotEngine& aot,
                       const ProgramSpec& spec, const std::vector<EagerRun>& eager_runs,
                       const std::vector<std::pair<std::string, std::vector<Tensor>>>& outside,
                       size_t other_engines, Stats& stats) {
  std::optional<runtime::Program> compiled, compiled_c;
  try {
    compiling.get();
    compiled.emplace(runtime::Program::load(library, runtime::Options{.num_threads = 1}));
    setenv("XPORT_MODEL_C_ABI", "1", 1);
    compiled_c.emplace(runtime::Program::load(library, runtime::Options{.num_threads = 1}));
    unsetenv("XPORT_MODEL_C_ABI");
  } catch (const Error& e) {
    // A limitation the compiler states before compiling is no finding; anything else is.
    if (e.kind() != ErrorKind::UnsupportedOp) {
      return {std::string(kAotEngine) + ": compile or load failed", e.what()};
    }
    ++aot.refused;
    return {};
  } catch (const std::exception& e) {
    return {std::string(kAotEngine) + ": compile or load failed", e.what()};
  }
  ++aot.compiled;
  const std::pair<std::string, Engine> engines[] = {
      {kAotEngine, [&](const auto& in) { return compiled->run_values(in); }},
      {std::string(kAotEngine) + " (C ABI)",
       [&](const auto& in) { return compiled_c->run_values(in); }}};
  stats.engines = std::max(stats.engines, static_cast<int64_t>(other_engines + 2));
  for (const auto& [name, run] : engines) {
    for (size_t k = 0; k < eager_runs.size(); ++k) {
      if (k + 1 == eager_runs.size()) {
        for (const auto& [what, bad] : outside) {
          if (Finding f = check_outside(name, run, what, bad, spec, stats)) return f;
        }
      }
      if (Finding f = check_inside(name, run, eager_runs[k], stats)) return f;
    }
  }
  return {};
}

Finding check_program(const ProgramSpec& spec, int input_sets, Stats& stats, bool must_export,
                      TorchCases* torch_cases, AcceptanceCases* acceptance, AotEngine* aot,
                      TorchOracle* oracle) {
  ++stats.programs;
  // The module the program is exported in, and eager's own: the exported program holds the
  // former's buffer, and both go on from the same zeros, run by run.
  FuzzModule module, eager_module;
  eager_module.watch_rounding = oracle != nullptr;
  auto fn = [&spec, &module](const std::vector<Value>& in) {
    std::vector<Tensor> ts;
    for (const Value& v : in) ts.push_back(v.to_tensor());
    return run_program(spec, ts, module);
  };
  std::mt19937_64 rng(spec.seed * 7919 + 1);
  // The example: each Dim at least 2 where its range allows (a size-1 example would work too).
  std::vector<int64_t> example_values;
  for (const DimRange& r : spec.dims) {
    example_values.push_back(std::max<int64_t>(r.min, std::min<int64_t>(r.max, 3)));
  }
  const std::vector<Tensor> example = random_inputs(input_sizes(spec, example_values), spec.seed);
  std::vector<Tensor> example_outputs;
  try {
    FuzzModule scratch;
    example_outputs = clones(run_program(spec, clones(example), scratch));
  } catch (const Error&) {
    ++stats.invalid;
    return {};
  } catch (const std::exception& e) {
    return {"eager crashed", e.what()};
  }

  // Export: a refusal must be a well-formed error naming the user's inputs or Dims.
  std::optional<ExportedProgram> ep;
  try {
    ep.emplace(export_program(module, fn, values_of(clones(example)), export_options(spec)));
  } catch (const Error& e) {
    if (acceptance != nullptr) {
      write_acceptance_case(*acceptance, spec, example, example_outputs, e);
    }
    stats.export_refusals[to_string(e.kind())]++;
    if (e.kind() != ErrorKind::ConstraintViolation &&
        !stats.first_refusal.count(to_string(e.kind()))) {
      stats.first_refusal[to_string(e.kind())] =
          "seed " + std::to_string(spec.seed) + ": " + e.what();
    }
    if (e.kind() == ErrorKind::Internal) return {"export: Internal error", e.what()};
    if (must_export) return {"export refused", e.what()};
    if ((e.kind() == ErrorKind::ConstraintViolation || e.kind() == ErrorKind::InvalidSpec) &&
        !names_the_user(e.what(), spec)) {
      return {"export: an error that names neither an input nor a Dim", e.what()};
    }
    return {};
  } catch (const std::exception& e) {
    return {"export: not an xport::Error", e.what()};
  }
  ++stats.exported;
  if (oracle != nullptr) oracle->offer_onnx(*ep);
  if (acceptance != nullptr) {
    write_acceptance_case(*acceptance, spec, example, example_outputs, std::nullopt);
  }
  for (StepKind k : kinds_used(spec)) stats.features[static_cast<size_t>(k)]++;

  // Every way of running it.
  const std::string path = temp_path();
  struct Cleanup {
    std::string path;
    ~Cleanup() { std::filesystem::remove(path); }
  } cleanup{path};
  std::vector<std::pair<std::string, Engine>> engines;
  // Room for every engine up front (GCC 12 warns, wrongly, of the first reallocation's bounds).
  engines.reserve(8);
  std::optional<ExportedProgram> loaded, decomposed;
  std::optional<runtime::Program> fused, unfused;
  try {
    save(*ep, path);
    loaded.emplace(load(path));
    // From its own load: a decomposed program shares its state (buffers) with the program
    // it came from, as PyTorch's does, and each engine here must advance its own.
    decomposed.emplace(load(path).run_decompositions());
    fused.emplace(runtime::Program::load(path, runtime::Options{.num_threads = 1, .fuse = true}));
    unfused.emplace(
        runtime::Program::load(path, runtime::Options{.num_threads = 1, .fuse = false}));
  } catch (const std::exception& e) {
    return {"save, load, run_decompositions or the runtime's load failed", e.what()};
  }
  engines.emplace_back("ExportedProgram::run", [&](const auto& in) { return ep->run(in); });
  engines.emplace_back("archive round trip", [&](const auto& in) { return loaded->run(in); });
  engines.emplace_back("run_decompositions", [&](const auto& in) { return decomposed->run(in); });
  engines.emplace_back("runtime (fused)", [&](const auto& in) { return fused->run_values(in); });
  engines.emplace_back("runtime (unfused)",
                       [&](const auto& in) { return unfused->run_values(in); });
  // Its own name: the compiler writes NAME.pt2 beside NAME.so, and `path` is in use.
  const std::string library = path.substr(0, path.size() - 4) + "-aot.so";
  struct LibraryCleanup {
    std::string so;
    ~LibraryCleanup() {
      for (const char* ext : {".so", ".pt2", ".h"}) {
        std::filesystem::remove(so.substr(0, so.size() - 3) + ext);
      }
    }
  } library_cleanup{library};
  // The compiler runs beside the other engines (it reads the saved archive, which nothing else
  // changes) and its library is checked after them, on the same sets in the same order.
  std::future<void> compiling;
  if (aot != nullptr && aot->seen++ % aot->every == 0) {
    compiling = std::async(std::launch::async,
                           [&path, &library] { aot::compile_archive(path, library); });
  }
  stats.engines = std::max(stats.engines, static_cast<int64_t>(engines.size()));

  std::vector<EagerRun> eager_runs;
  // The inside sets, then the outside ones, then one inside set more: a refused call must not
  // have advanced any engine's buffer.
  const auto outside = outside_sets(spec, spec.seed * 977);
  for (int k = 0; k <= input_sets; ++k) {
    if (k == input_sets) {
      for (const auto& [what, bad] : outside) {
        for (const auto& [name, run] : engines) {
          if (Finding f = check_outside(name, run, what, bad, spec, stats)) return f;
        }
        ++stats.outside_pairs;
      }
    }
    const std::vector<Tensor> inputs =
        random_inputs(input_sizes(spec, inside_values(spec, rng)), spec.seed * 131 + k);
    std::vector<Tensor> eager_inputs = clones(inputs);
    std::vector<Tensor> want;
    bool eager_ok = true;
    try {
      want = run_program(spec, eager_inputs, eager_module);
    } catch (const Error&) {
      eager_ok = false;
      ++stats.eager_refused;
    }
    ++stats.engine_runs["xport's eager"];
    // Copies: an output may be the buffer itself, which later runs update.
    eager_runs.push_back({inputs, eager_ok, eager_ok ? clones(want) : std::vector<Tensor>{},
                          clones(eager_inputs), eager_module.near_threshold,
                          eager_module.sin_argument_scale});
    if (oracle != nullptr) {
      EagerRun& run = eager_runs.back();
      run.near_float_limit = near_float_limit(run.outputs) ||
                             near_float_limit(run.inputs_after) ||
                             near_float_limit({eager_module.state});
    }
    eager_module.near_threshold = false;
    eager_module.sin_argument_scale = 0;
    for (const auto& [name, run] : engines) {
      if (Finding f = check_inside(name, run, eager_runs.back(), stats)) return f;
    }
    ++stats.inside_pairs;
  }
  if (oracle != nullptr) {
    if (Finding f = compare_with_torch(*oracle, spec, eager_runs)) return f;
  }
  if (compiling.valid()) {
    if (Finding f = check_compiled(compiling, library, *aot, spec, eager_runs, outside,
                                   engines.size(), stats)) {
      return f;
    }
  }
  if (torch_cases != nullptr && torch_cases->seen++ % torch_cases->every == 0) {
    std::vector<std::vector<Tensor>> refused;
    for (const auto& [what, inputs] : outside) refused.push_back(inputs);
    write_torch_case(*torch_cases, spec, *ep, path, eager_runs, refused);
  }
  return {};
}

ProgramSpec minimise(ProgramSpec spec, const Finding& finding, int input_sets,
                     TorchOracle* oracle) {
  const bool torch = finding.kind.rfind(kTorchOracle, 0) == 0 ||
                     finding.kind.rfind(kOnnxEngine, 0) == 0;
  for (size_t i = spec.steps.size(); i-- > 0;) {
    if (spec.steps[i].disabled) continue;
    ProgramSpec candidate = spec;
    candidate.steps[i].disabled = true;
    Stats ignored;
    // A finding of the compiled library is looked for in each candidate's own library.
    AotEngine always;
    const bool aot = finding.kind.rfind(kAotEngine, 0) == 0;
    const Finding f =
        check_program(candidate, input_sets, ignored, false, nullptr, nullptr,
                      aot ? &always : nullptr, torch ? oracle : nullptr);
    if (f && f.kind == finding.kind) spec = candidate;
  }
  return spec;
}

}  // namespace xport::soundness
