#pragma once
// PyTorch's eager as the soundness fuzzer's oracle: each exported program, written as a
// torch.nn.Module (torch_program.h), runs its input sets in one long-lived Python process
// (torch_worker.py), so that torch is imported once and the rate stays high. The same process
// runs the program's ONNX file (xport::onnx::save) in ONNX Runtime, one more engine.
#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "program_generator.h"
#include "xport/tensor/tensor.h"

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

  /// What the worker gave for one program: PyTorch's runs, and ONNX Runtime's (user outputs,
  /// and the inputs as the file's input updates leave them) where it was asked and the export
  /// wrote a file, else why not.
  struct Answer {
    std::vector<Run> torch, onnx;
    bool onnx_ran = false;
    std::optional<Error> onnx_refused;
  };

  /// Called right after the export, before any engine runs the program (runs advance its
  /// buffers): writes its ONNX file when it is one of every `onnx_every` programs, for run().
  void offer_onnx(const ExportedProgram& program);

  /// Runs the sets in order on one instance of the program's module (its buffer goes on from
  /// run to run), and in ONNX Runtime the file offer_onnx wrote, if it did. Throws
  /// std::runtime_error with PyTorch's message when the module cannot be built, or when the
  /// worker is gone.
  Answer run(const ProgramSpec& spec, const std::vector<std::vector<Tensor>>& sets);

  /// Whether PyTorch's error is one of its own refusals that the known file lists.
  bool pytorch_own(const std::string& error) const;

  int onnx_every = 0;        // every k-th program in ONNX Runtime too (0: none)
  int64_t onnx_seen = 0;     // programs offered so far
  int64_t programs = 0;      // programs run in PyTorch
  int64_t pairs = 0;         // program x input set compared with xport's eager
  int64_t own_refusals = 0;  // sets PyTorch refuses of its own (the known file)
  int64_t near_threshold = 0;  // programs compared only up to a condition within rounding
  int64_t near_float_limit = 0;  // programs compared only up to values near float32's limit
  int64_t onnx_programs = 0;  // programs run in ONNX Runtime
  int64_t onnx_pairs = 0;     // program x input set of ONNX Runtime compared with xport's eager
  std::map<std::string, int64_t> onnx_refusals;  // programs the ONNX export refuses, by kind

 private:
  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
  std::string dir_;
  std::vector<std::string> known_;
  bool onnx_written_ = false;                // offer_onnx wrote the program's file
  std::optional<Error> onnx_refused_;  // or the export refused it
};

/// The soundness fuzzer's findings of this oracle, and of ONNX Runtime, start with these.
inline constexpr const char* kTorchOracle = "PyTorch eager";
inline constexpr const char* kOnnxEngine = "ONNX Runtime";

}  // namespace xport::soundness
