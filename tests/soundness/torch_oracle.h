#pragma once
// PyTorch's eager as the soundness fuzzer's oracle: each exported program, written as a
// torch.nn.Module (torch_program.h), runs its input sets in one long-lived Python process
// (torch_worker.py), so that torch is imported once and the rate stays high.
#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "program_generator.h"
#include "xport/tensor.h"

namespace xport::soundness {

class TorchOracle {
 public:
  /// What one input set gave in PyTorch: its error, or its outputs and the inputs as the run
  /// left them.
  struct Run {
    std::optional<std::string> error;
    std::vector<Tensor> outputs, inputs_after;
  };

  /// Starts `python worker`; `known` is the file of PyTorch's own refusals
  /// (torch_oracle_known.txt). Throws std::runtime_error when it cannot.
  TorchOracle(const std::string& python, const std::string& worker, const std::string& known);
  ~TorchOracle();
  TorchOracle(const TorchOracle&) = delete;
  TorchOracle& operator=(const TorchOracle&) = delete;

  /// Runs the sets in order on one instance of the program's module (its buffer goes on from
  /// run to run). Throws std::runtime_error with PyTorch's message when the module cannot be
  /// built, or when the worker is gone.
  std::vector<Run> run(const ProgramSpec& spec, const std::vector<std::vector<Tensor>>& sets);

  /// Whether PyTorch's error is one of its own refusals that the known file lists.
  bool pytorch_own(const std::string& error) const;

  int64_t programs = 0;      // programs run in PyTorch
  int64_t pairs = 0;         // program x input set compared with xport's eager
  int64_t own_refusals = 0;  // sets PyTorch refuses of its own (the known file)

 private:
  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
  std::string dir_;
  std::vector<std::string> known_;
};

/// The soundness fuzzer's findings of this oracle start with this.
inline constexpr const char* kTorchOracle = "PyTorch eager";

}  // namespace xport::soundness
