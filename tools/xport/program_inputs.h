#pragma once
// What `xport run` and `xport bench` share: the input contract as text, `NAME=VALUE` options
// matched to the contract's inputs, plain (int, float, bool) inputs, and timing and size text.

#include <chrono>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "xport/program/exported_program.h"
#include "xport/runtime.h"
#include "xport/tensor/value.h"

namespace xport::tools {

/// One contract entry as the graph prints values: `f32[s0, 8]`, `[f32[2, 3], i64[4]]`,
/// `int = 3 (specialised)`.
std::string contract_type(const InputContract& c);

/// The contract, one line per input (`  x: f32[s0, 8]`) then per symbol
/// (`  s0: batch in [2, 64]  (x.size(0))`), each line after a newline.
std::string contract_lines(const std::vector<InputContract>& contract,
                           const std::vector<SymbolSpec>& symbols);

/// The program's inputs for an error message, one per line after a newline:
/// `  x: f32[s0, 8]` then the symbols' ranges (`  s0: batch in [2, 64]  (x.size(0))`).
std::string expected_inputs(const std::vector<InputContract>& contract,
                            const std::vector<SymbolSpec>& symbols);

/// Splits `option`'s `NAME=VALUE` arguments by name. Throws InvalidInput for an argument with
/// no `=`, a name the contract does not have, or a name given twice; the message lists the
/// expected inputs. `command` starts the message (`run`; the tool prefixes `xport: `).
std::map<std::string, std::string> assignments_by_name(const std::vector<std::string>& args,
                                                       const std::string& command,
                                                       const std::string& option,
                                                       const std::vector<InputContract>& contract,
                                                       const std::vector<SymbolSpec>& symbols);

/// The value for a plain int, float or bool input: `literal` parsed (`123`, `0.5`,
/// `true`/`false`) when given, else the value the program was specialised to. The program checks
/// the value against its contract when it runs.
Value plain_input(const InputContract& c, const std::string* literal, const std::string& command);

/// True for the contract kinds that are plain values (Int, Float, Bool).
bool is_plain(const InputContract& c);

/// `[1, 8, 50257]`.
std::string shape_str(const std::vector<int64_t>& sizes);

/// A duration given in milliseconds: `0.123 ms`, `12.35 ms`, `101.2 ms`, `1.65 s`.
std::string ms_str(double ms);

/// Decimal units: `497.8 MB`.
std::string bytes_str(int64_t bytes);

/// `1.5e-05` as `1.5e-05`: one digit after the point.
std::string sci(double v);

/// Milliseconds since `start`.
double ms_since(std::chrono::steady_clock::time_point start);

/// Runs each named input set (all outside the contract) and prints the runtime's refusal under
/// "refused by the runtime (outside the contract):"; false, after a FAILED line, when the
/// runtime accepts one.
bool show_refusals(const runtime::Program& program,
                   const std::vector<std::pair<std::string, std::vector<Value>>>& outside,
                   std::ostream& out);

}  // namespace xport::tools
