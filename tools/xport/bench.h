#pragma once
// `xport bench FILE --shape NAME=AxBxC ...`: loads an archive in the runtime and times runs on
// random inputs of the given shapes: load, first run (which plans the shapes), latency
// percentiles and throughput over repeated runs, peak RSS and the memory plan.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace xport::tools {

struct BenchOptions {
  std::string archive;
  /// `NAME=AxBxC` per tensor input; an input whose contract shape is fully static defaults to it.
  /// Floating inputs are standard normal, integer inputs uniform in [0, 100), bool inputs
  /// uniform in {false, true}; plain inputs take the value the program was specialised to.
  std::vector<std::string> shapes;
  int threads = 0;   ///< kernel threads; 0: the machine's cores
  bool fuse = true;  ///< runtime::Options::fuse
  /// Also time every kernel call (runtime::Program::profile) and print the time by op.
  bool profile = false;
  int runs = 20;   ///< timed runs
  int warmup = 3;  ///< untimed runs after the first
  uint64_t seed = 0;
};

/// Prints the timings; inputs outside the contract throw the runtime's InvalidInput error before
/// anything is timed.
int run_bench(const BenchOptions& options, std::ostream& out);

}  // namespace xport::tools
