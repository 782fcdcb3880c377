#pragma once
/// \file ExportDB: a catalogue of example programs, supported and unsupported, each with its
/// example inputs, its dynamic-shape spec and the outcome export_program must give. Error messages
/// name the case that shows the fix (`see ExportDB case 'dynamic_shape_if_guard'`).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xport/capture/export.h"
#include "xport/core/error.h"
#include "xport/nn/module.h"
#include "xport/tensor/value.h"

namespace xport::exportdb {

/// One example program and what exporting it must do.
struct Case {
  std::string name = {};               ///< `dynamic_shape_if_guard`: unique, referred to by errors
  std::vector<std::string> tags = {};  ///< `dynamic-shape`, `control-flow`, `module`, ...
  /// What the case shows; for a failing case, also what to write instead.
  std::string description = {};
  std::shared_ptr<nn::Module> module = {};  ///< the module whose state the program uses, or null
  TracedFn fn = {};                         ///< the program, also run eagerly as the reference
  std::vector<Value> example_inputs = {};
  ExportOptions options = {};
  /// What a backend does with the exported program before running it (run_decompositions,
  /// transform): the checks, the round trip and the site use what it returns. Null: the
  /// program as exported.
  std::function<ExportedProgram(const ExportedProgram&)> backend = {};
  /// The kind of error export_program must throw; nullopt: it must export.
  std::optional<ErrorKind> expected_error = {};
  /// A failing case: the case whose program shows the fix (its page links back to this one).
  std::string fix = {};
  /// Other inputs inside the contract: the exported program must agree with `fn` on each.
  std::vector<std::vector<Value>> valid_inputs = {};
  /// Inputs outside the contract: ExportedProgram::run must refuse each with InvalidInput.
  std::vector<std::vector<Value>> invalid_inputs = {};
  std::string file = {};  ///< where the case is written, relative to the source tree
  int line = 0;
};

/// Every case, in catalogue order (built on first use).
const std::vector<Case>& all_cases();
/// The case named `name`, or null.
const Case* find_case(std::string_view name);

/// Exports the case (with its module, when it has one) and applies its backend step.
ExportedProgram export_case(const Case& c);

/// The page of case `name` in the site write_site writes: `cases/<name>.html`.
std::string case_page(std::string_view name);

struct SiteSummary {
  int cases = 0, exported = 0, refused = 0;
};
/// Writes the catalogue as a static site into `out_dir` (`xport exportdb OUT_DIR`): index.html
/// lists every case with its tags and outcome; cases/<name>.html shows its description, the
/// program it exports (the functions and classes it uses, cut from its source file, and the
/// lambda it passes), its example inputs and spec, its registration, the exported program with
/// its contract or the exact error and, for a failing case, the program of the case that fixes
/// it side by side (linked both ways); assets/ holds highlight.js. Each case is exported on the
/// spot, so the site shows what this build does.
SiteSummary write_site(const std::string& out_dir);

}  // namespace xport::exportdb
