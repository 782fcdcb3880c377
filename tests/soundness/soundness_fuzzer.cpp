// The soundness fuzzer (issue "random programs x random inputs"): generates programs from seeds,
// exports each, and checks every input set inside its contract against eager through every
// engine, and every set just outside it for a refusal. Prints the counts; on a finding prints
// the minimised program and exits 1.
//
// Usage: xport_soundness_fuzzer [--seconds S] [--programs N] [--seed FIRST] [--inputs K]
//                               [--replay FILE] [--torch-cases DIR [--torch-every K]]
//                               [--torch-accept DIR] [--aot-every K]
//   --seconds S   run for S seconds (default 10); --programs N stops after N programs instead
//   --seed FIRST  the first seed (default 1); programs use FIRST, FIRST + 1, ...
//   --inputs K    input sets inside the contract per program (default 8)
//   --replay FILE first the regression cases of FILE: one `vVERSION SEED [STEP ...] [!exports]`
//                 a line (the program of the generator's version; the steps listed are removed,
//                 as minimisation left them; `!exports`: the program must export), `#` starts a
//                 comment
//   --torch-cases DIR  also write every k-th exported program (--torch-every K, default 10)
//                 with its input sets to DIR for tests/serde/torch_load_cases.py
//   --torch-accept DIR  also write every program (exported or refused) in PyTorch to DIR for
//                 tests/soundness/torch_acceptance.py, with xport's verdict
//   --aot-every K also compile every k-th exported program ahead of time (default 10; 0: none;
//                 on a thread of its own, beside the other engines) and run the library as
//                 two more engines (its C++ entrance and its C ABI)
//   --torch-oracle PYTHON  also run every exported program's inside sets in PyTorch's eager
//                 (tests/soundness/torch_worker.py under PYTHON, one process for the whole run):
//                 a difference from xport's eager in values, dtypes, sizes or in which sets
//                 raise is a finding
//   --onnx-every K with --torch-oracle, also run every k-th exported program's ONNX file
//                 (xport::onnx::save) in ONNX Runtime as one more engine (default 0: none)
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "soundness_oracle.h"

using namespace xport::soundness;  // NOLINT: a test program

namespace {

struct Options {
  double seconds = 10;
  int64_t programs = 0;
  uint64_t seed = 1;
  int inputs = 8;
  std::string replay;
  std::string torch_dir;
  int torch_every = 10;
  std::string accept_dir;
  int aot_every = 10;
  std::string torch_python;
  int onnx_every = 0;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--seconds") {
      o.seconds = std::stod(next());
    } else if (a == "--programs") {
      o.programs = std::stoll(next());
    } else if (a == "--seed") {
      o.seed = std::stoull(next());
    } else if (a == "--inputs") {
      o.inputs = std::stoi(next());
    } else if (a == "--replay") {
      o.replay = next();
    } else if (a == "--torch-cases") {
      o.torch_dir = next();
    } else if (a == "--torch-accept") {
      o.accept_dir = next();
    } else if (a == "--torch-every") {
      o.torch_every = std::stoi(next());
    } else if (a == "--aot-every") {
      o.aot_every = std::stoi(next());
    } else if (a == "--torch-oracle") {
      o.torch_python = next();
    } else if (a == "--onnx-every") {
      o.onnx_every = std::stoi(next());
    } else {
      throw std::runtime_error("unknown argument " + a);
    }
  }
  return o;
}

void report(const ProgramSpec& spec, const Finding& f, int inputs, TorchOracle* oracle) {
  const ProgramSpec small = minimise(spec, f, inputs, oracle);
  std::cout << "FINDING: " << f.kind << "\n  " << f.detail << "\n" << small.str();
  std::cout << "  regression case: v" << small.version << " " << small.seed;
  for (size_t i = 0; i < small.steps.size(); ++i) {
    if (small.steps[i].disabled) std::cout << " " << i;
  }
  std::cout << "\n" << std::flush;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  Stats stats;
  TorchCases torch_cases;
  torch_cases.dir = o.torch_dir;
  torch_cases.every = o.torch_every;
  TorchCases* torch = o.torch_dir.empty() ? nullptr : &torch_cases;
  AcceptanceCases acceptance_cases;
  acceptance_cases.dir = o.accept_dir;
  AcceptanceCases* acceptance = o.accept_dir.empty() ? nullptr : &acceptance_cases;
  AotEngine aot_engine;
  aot_engine.every = o.aot_every;
  AotEngine* aot = o.aot_every > 0 ? &aot_engine : nullptr;
  std::optional<TorchOracle> torch_oracle;
  if (!o.torch_python.empty()) {
    torch_oracle.emplace(o.torch_python, XPORT_TORCH_WORKER, XPORT_TORCH_ORACLE_KNOWN);
    torch_oracle->onnx_every = o.onnx_every;
  } else if (o.onnx_every > 0) {
    throw std::runtime_error("--onnx-every runs ONNX Runtime in --torch-oracle's worker");
  }
  TorchOracle* oracle = torch_oracle ? &*torch_oracle : nullptr;
  const auto start = std::chrono::steady_clock::now();
  int64_t replayed = 0;
  if (!o.replay.empty()) {
    std::ifstream in(o.replay);
    if (!in) throw std::runtime_error("cannot read " + o.replay);
    std::string line;
    while (std::getline(in, line)) {
      line = line.substr(0, line.find('#'));
      std::istringstream fields(line);
      std::string version;
      uint64_t seed = 0;
      if (!(fields >> version)) continue;
      if (version.size() < 2 || version[0] != 'v' || !(fields >> seed)) {
        throw std::runtime_error(o.replay + ": expected `vVERSION SEED ...`, got: " + line);
      }
      ProgramSpec spec = generate(seed, std::stoi(version.substr(1)));
      bool must_export = false;
      std::string token;
      while (fields >> token) {
        if (token == "!exports") {
          must_export = true;
        } else if (const size_t step = std::stoul(token); step < spec.steps.size()) {
          spec.steps[step].disabled = true;
        }
      }
      ++replayed;
      if (const Finding f = check_program(spec, o.inputs, stats, must_export, nullptr, nullptr,
                                          aot, oracle)) {
        ++stats.findings;
        report(spec, f, o.inputs, oracle);
      }
    }
  }
  for (uint64_t seed = o.seed;; ++seed) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (o.programs > 0 ? stats.programs - replayed >= o.programs : elapsed >= o.seconds) break;
    const ProgramSpec spec = generate(seed);
    if (const Finding f =
            check_program(spec, o.inputs, stats, false, torch, acceptance, aot, oracle)) {
      ++stats.findings;
      report(spec, f, o.inputs, oracle);
    }
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "programs: " << stats.programs << " (" << replayed << " regression cases), "
            << stats.exported << " exported, " << stats.invalid
            << " not valid in eager (skipped)\n";
  std::cout << "export refusals:";
  if (stats.export_refusals.empty()) std::cout << " none";
  for (const auto& [kind, count] : stats.export_refusals) std::cout << " " << kind << " " << count;
  for (const auto& [kind, first] : stats.first_refusal) {
    std::cout << "\n  first " << kind << ": " << first.substr(0, first.find('\n'));
  }
  std::cout << "\nprogram x input pairs: " << stats.inside_pairs << " inside the contract ("
            << stats.eager_refused << " sets eager refuses too), " << stats.outside_pairs
            << " outside it, each through every engine (" << stats.engines << " at most)\n";
  if (aot != nullptr) {
    std::cout << "compiled ahead of time (1 in " << aot->every << " exported programs): "
              << aot->compiled << " libraries run as an engine, " << aot->refused
              << " refused for a limitation the compiler states\n";
  }
  if (oracle != nullptr) {
    std::cout << "compared with PyTorch's eager: " << oracle->programs << " programs, "
              << oracle->pairs << " program x input pairs inside the contract; "
              << oracle->own_refusals
              << " sets PyTorch refuses of its own (torch_oracle_known.txt), not compared; "
              << oracle->near_threshold
              << " programs compared up to a data-dependent condition within rounding of its "
                 "threshold, "
              << oracle->near_float_limit
              << " up to values past 1e30 (float32's sums may overflow there)\n";
    if (oracle->onnx_every > 0) {
      std::cout << "run in ONNX Runtime (1 in " << oracle->onnx_every << "): "
                << oracle->onnx_programs << " programs, " << oracle->onnx_pairs
                << " program x input pairs; ONNX export refusals:";
      if (oracle->onnx_refusals.empty()) std::cout << " none";
      for (const auto& [kind, n] : oracle->onnx_refusals) std::cout << " " << kind << " " << n;
      std::cout << "\n";
    }
  }
  // Every input set each engine ran and had checked: xport's (inside and outside sets), then
  // PyTorch's eager and ONNX Runtime (inside sets, compared with xport's eager).
  std::map<std::string, int64_t> runs = stats.engine_runs;
  if (oracle != nullptr) runs["PyTorch's eager"] = oracle->pairs;
  if (oracle != nullptr && oracle->onnx_every > 0) runs["ONNX Runtime"] = oracle->onnx_pairs;
  int64_t total_runs = 0;
  for (const auto& [engine, n] : runs) total_runs += n;
  std::cout << "input sets run across engines: " << total_runs << " (";
  for (auto it = runs.begin(); it != runs.end(); ++it) {
    std::cout << (it == runs.begin() ? "" : ", ") << it->first << " " << it->second;
  }
  std::cout << ")\n";
  std::cout << "exported programs using each feature:\n";
  for (int k = 0; k < kStepKinds; ++k) {
    const int64_t n = stats.features[static_cast<size_t>(k)];
    std::cout << "  " << kind_name(static_cast<StepKind>(k)) << ": " << n << " ("
              << (stats.exported ? 100 * n / stats.exported : 0) << "%)\n";
  }
  if (torch != nullptr) {
    torch->finish();
    std::cout << "written for PyTorch: " << torch->written << " programs in " << o.torch_dir
              << " (tests/serde/torch_load_cases.py reads them)\n";
  }
  if (acceptance != nullptr) {
    acceptance->finish();
    std::cout << "written in PyTorch: " << acceptance->cases.size() << " programs in "
              << o.accept_dir << " (tests/soundness/torch_acceptance.py reads them)\n";
  }
  std::cout << "findings: " << stats.findings << "; " << elapsed << " s\n";
  return stats.findings == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::cerr << "xport_soundness_fuzzer: " << e.what() << "\n";
  return 2;
}
