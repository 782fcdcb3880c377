#pragma once
// The oracle of the soundness fuzzer: a program is exported from its eager C++; then inputs
// inside the contract must give eager's results through every way of running it, and inputs
// outside must be refused by every one of them with InvalidInput, leaving the inputs as they were.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "program_generator.h"
#include "torch_oracle.h"

namespace xport::soundness {

struct Stats {
  int64_t programs = 0;
  int64_t invalid = 0;   // eager itself refuses the example (the generator's program is not valid)
  int64_t exported = 0;
  std::map<std::string, int64_t> export_refusals;  // by ErrorKind
  /// The first export refusal of each kind other than ConstraintViolation (a Dim's range the
  /// program narrows, which the generator makes on purpose): the seed and the message.
  std::map<std::string, std::string> first_refusal;
  int64_t engines = 0;         // the most engines one program ran through
  int64_t inside_pairs = 0;    // program x input set inside the contract, every engine compared
  int64_t outside_pairs = 0;   // program x input set outside it, every engine refusing
  int64_t eager_refused = 0;   // inside sets eager refuses (every engine must refuse too)
  /// Input sets (inside and outside the contract) each xport engine ran and had checked, by
  /// engine name; xport's eager counts its inside sets.
  std::map<std::string, int64_t> engine_runs;
  std::array<int64_t, kStepKinds> features{};  // exported programs using each step kind
  int64_t findings = 0;
};

/// What went wrong with one program: empty when nothing did. The first line names the class of
/// failure (which engine, which check), so that minimisation can keep it.
struct Finding {
  std::string kind;
  std::string detail;
  explicit operator bool() const { return !kind.empty(); }
};

/// Where exported programs go for PyTorch: each written with its archive, the input sets inside
/// its contract with eager's outputs, and the sets outside it, in the manifest layout
/// tests/serde/torch_load_cases.py reads (torch.export.load of each archive must equal eager).
struct TorchCases {
  std::string dir;
  int every = 1;      // every k-th exported program
  int64_t seen = 0;   // exported programs so far
  int64_t written = 0;
  std::vector<std::string> cases;  // JSON of each case
  /// Writes DIR/manifest.json.
  void finish() const;
};

/// Where programs go for the comparison with what torch.export accepts: each program's PyTorch
/// source (torch_program.h), its example inputs, eager's outputs on them, and whether xport
/// exported it or with which error, in DIR/manifest.json for tests/soundness/torch_acceptance.py.
struct AcceptanceCases {
  std::string dir;
  std::vector<std::string> cases;  // JSON of each case
  /// Writes DIR/manifest.json.
  void finish() const;
};

/// The ahead-of-time compiled library as two more engines: every k-th exported program's
/// archive is compiled (aot::compile_archive, about a second each, on a thread of its own while
/// the other engines run) and loaded as runtime::Program::load does, through the library's C++
/// entrance and through its C ABI.
struct AotEngine {
  int every = 1;      // every k-th exported program
  int64_t seen = 0;   // exported programs so far
  int64_t compiled = 0;
  /// Programs the compiler refuses for a limitation it states (an op with no named kernel).
  int64_t refused = 0;
};

/// The engine name of the AOT library's findings.
inline constexpr const char* kAotEngine = "aot library";

/// Checks one program on `input_sets` random sets inside its contract and on the sets just
/// outside it; counts into `stats`. With `must_export`, a refused export is a finding too (a
/// regression case of a program xport once refused where PyTorch exports it). With `oracle`,
/// the inside sets run in PyTorch's eager as well: a difference from xport's eager in values,
/// dtypes, sizes, or in which sets raise, is a finding.
Finding check_program(const ProgramSpec& spec, int input_sets, Stats& stats,
                      bool must_export = false, TorchCases* torch_cases = nullptr,
                      AcceptanceCases* acceptance = nullptr, AotEngine* aot = nullptr,
                      TorchOracle* oracle = nullptr);

/// A smaller program that fails the same way: steps removed (made the identity) one at a time
/// while the failure stays. A finding of PyTorch's eager is looked for with `oracle`.
ProgramSpec minimise(ProgramSpec spec, const Finding& finding, int input_sets,
                     TorchOracle* oracle = nullptr);

}  // namespace xport::soundness
