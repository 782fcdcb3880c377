#pragma once
// `xport run FILE --input NAME=FILE.npy ...`: loads an archive in the runtime, reads each input
// from a .npy file by its name in the contract, runs it once and writes each output as .npy.

#include <ostream>
#include <string>
#include <vector>

namespace xport::tools {

struct RunOptions {
  std::string archive;
  /// `NAME=FILE.npy` per tensor input; `NAME=A.npy,B.npy` for a tensor list; `NAME=123`,
  /// `NAME=0.5`, `NAME=true` for a plain input (default: the value it was specialised to).
  std::vector<std::string> inputs;
  /// Where the outputs go, created if missing: <DIR>/<output name>.npy.
  std::string out_dir = ".";
  int threads = 0;   ///< kernel threads; 0: the machine's cores
  bool fuse = true;  ///< runtime::Options::fuse
};

/// Runs the archive once and prints one line per output (name, dtype, shape, file). A missing,
/// unknown or unreadable input, or one outside the contract, throws InvalidInput naming it.
int run_run(const RunOptions& options, std::ostream& out);

}  // namespace xport::tools
