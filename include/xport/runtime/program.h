#pragma once
/// \file runtime::Program: load an archive or a compiled model and run it, with no capture code.
/// A Program checks inputs against the archive's contract, plans intermediate memory once per set
/// of input shapes, and runs out-variant kernels on a pool sized by the caller; one Program
/// serves many threads at once.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xport/program/exported_program.h"
#include "xport/serde/archive.h"
#include "xport/tensor/tensor.h"
#include "xport/tensor/value.h"

namespace xport::runtime {

struct Options {
  /// Kernel threads per run() (intra-op parallelism); 0 means the machine's cores.
  int num_threads = 0;
  /// Execution plans kept, one per distinct set of input shapes (oldest dropped first).
  int max_cached_plans = 64;
  /// Rewrite the graph at load where one kernel call can do the work of several: convolutions
  /// absorb the inference batch norm, residual add and ReLU after them, matrix products with
  /// constant weights their bias and ReLU/GELU, and both run on weights packed once for oneDNN
  /// (extra memory: about one more copy of those weights). A call of a composite op (PyTorch's
  /// training IR keeps aten::layer_norm, aten::matmul, ...) becomes the calls its decomposition
  /// makes, planned with their kernels. Results agree with the unfused graph
  /// to float rounding (1e-5 of the largest magnitude in the tests), not bit for bit; with
  /// `fuse = false` they equal ExportedProgram::run's bit for bit.
  bool fuse = true;
};

/// How one set of input shapes runs.
struct PlanStats {
  /// false only for a model compiled ahead of time, whose plan is its library's code
  bool planned = true;
  std::string unplanned_reason;   ///< why, when not planned
  int64_t kernel_steps = 0;       ///< kernel calls per run (views excluded)
  int64_t view_steps = 0;         ///< views made per run (no kernel, no memory)
  /// Steps sized when they run (their sizes use a value only the data decides: nonzero's count,
  /// item()): bound and allocated then; every other step is planned.
  int64_t run_time_steps = 0;
  /// Composite ops (PyTorch's training IR keeps aten::linear, aten::conv2d, ...) run as their
  /// decomposition, eagerly, in each run (counted in kernel_steps); `xport decompose` or
  /// ExportedProgram::run_decompositions makes them planned kernel steps.
  int64_t composite_steps = 0;
  /// Buffers the program updates (a KV cache) that the run writes where they lie, uncopied.
  int64_t buffers_updated_in_place = 0;
  int64_t arena_values = 0;       ///< intermediates placed in the arena
  int64_t arena_bytes = 0;        ///< planned peak of intermediate memory
  int64_t lower_bound_bytes = 0;  ///< most intermediate bytes live at any one step
  int64_t output_bytes = 0;       ///< allocated per run for the outputs, outside the arena
  std::string fusion;             ///< what load-time fusion did (empty when Options::fuse is off)
  std::string str() const;
};

/// Where a run's time goes: one op's kernel calls (fused ops are `xport::fused_conv2d` and its
/// kin).
struct OpTime {
  std::string op;     ///< qualified name, e.g. `aten::addmm`
  int64_t calls = 0;  ///< kernel calls per run
  double ms = 0;      ///< kernel time per run (median run), milliseconds
};

/// What the kernels run on in this process, e.g. "Highway AVX3, oneDNN avx512_core_amx": the
/// instruction sets Highway's and oneDNN's dispatch chose, after XPORT_MAX_CPU_ISA's cap
/// (SSE41, AVX2, AVX512_CORE or ALL), which caps both. For benchmarks to print beside figures.
std::string kernel_isa();

/// Whether `path` is a model compiled ahead of time (a shared library), not an archive.
bool is_compiled_model(const std::string& path);
/// The archive a compiled model NAME.so reads when it embeds none: NAME.pt2 beside it.
std::string compiled_model_archive(const std::string& so_path);

class Program {
 public:
  /// Loads and validates an archive (xport::load), then resolves every node to its kernel. A
  /// model compiled ahead of time (NAME.so, xport/aot/aot.h) runs in its library, described by the
  /// archive it embeds or else NAME.pt2 beside it; run() gives the same results and errors.
  /// `info`, when given, gets what the archive says about itself (xport::load's ArchiveInfo).
  static Program load(const std::string& path, Options options = {},
                      ArchiveInfo* info = nullptr);
  /// A runtime program over an in-memory one (a loaded archive, or a capture's result).
  static Program from_exported(ExportedProgram program, Options options = {});

  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  ~Program();

  /// Checks `inputs` against the contract (the messages ExportedProgram::run gives), then runs
  /// the plan for their shapes. Thread-safe: any number of threads may run one Program.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;
  /// Same, for contracts that also take plain int, float or bool inputs, or tensor lists.
  std::vector<Tensor> run_values(const std::vector<Value>& inputs) const;
  /// Plans `inputs`' shapes (or finds the cached plan) and describes it.
  PlanStats plan_stats(const std::vector<Value>& inputs) const;
  /// Runs `inputs` `runs` times (after one untimed run) timing every kernel call; per op, the
  /// calls and time of the median run, most time first. Every run updates the program's buffers
  /// (and the inputs) as run() does.
  std::vector<OpTime> profile(const std::vector<Value>& inputs, int runs = 10) const;

  const std::vector<InputContract>& contract() const;
  const std::vector<SymbolSpec>& symbols() const;
  const ExportedProgram& program() const;
  const Options& options() const;
  size_t cached_plans() const;

 private:
  struct Impl;
  explicit Program(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace xport::runtime
