#pragma once
/// \file Quantizing a program from C++, as PyTorch's PT2E flow does: prepare() inserts observers,
/// running the prepared program calibrates them, convert() writes the quantize/dequantize ops
/// PyTorch's convert_pt2e writes, so the program saves to a .pt2 that PyTorch loads and runs
/// with the same results, and xport's runtime runs its linear layers and convolutions on integer
/// kernels.

#include <cstdint>
#include <string>

#include "xport/program/exported_program.h"

namespace xport::quant {

enum class Scheme {
  /// int8 weights (per output channel, symmetric) and uint8 activations (per tensor, affine)
  /// whose ranges calibration finds: X86InductorQuantizer's static configuration.
  StaticInt8,
  /// int8 weights; activations quantized per tensor with the range of each run's values
  /// (choose_qparams): X86InductorQuantizer's dynamic configuration. Needs no calibration.
  DynamicInt8,
  /// int8 weights per output channel; activations stay float.
  WeightOnlyInt8,
  /// int4 weights (kept one per int8) per group of `group_size` input features, affine, for
  /// linear layers; activations stay float.
  WeightOnlyInt4,
};

struct Config {
  Scheme scheme = Scheme::StaticInt8;
  int64_t group_size = 128;  ///< WeightOnlyInt4 only: input features per scale
};

/// The scheme's name on the command line: `static-int8`, `dynamic-int8`, `int8-weight`,
/// `int4-weight`.
const char* to_string(Scheme scheme);
/// The scheme a name gives (InvalidInput listing the names otherwise).
Scheme scheme_from_string(const std::string& name);

/// The program with its linear layers (aten::linear) and 2-d convolutions (aten::conv2d,
/// aten::convolution) whose weights are parameters or buffers quantized: weights at once
/// (their ranges are known), and for StaticInt8 an observer of each such layer's input
/// (running minimum and maximum, as buffers the program updates). Running the result
/// (ExportedProgram::run) on inputs calibrates it. Layers of other dtypes stay as they are.
ExportedProgram prepare(const ExportedProgram& program, Config config = {});

/// The prepared program with each observer replaced by quantize_per_tensor and
/// dequantize_per_tensor at the range it saw, and the observers removed. InvalidInput when an
/// observer saw no values (the prepared program never ran).
ExportedProgram convert(const ExportedProgram& prepared);

/// How the linear layers of to_bf16's program compute.
enum class Bf16Compute {
  /// As torch.autocast(bfloat16) runs them: each layer's input and bias rounded to bfloat16, a
  /// bfloat16 linear layer (float32 sums), its result widened back to float32. On CPUs with
  /// AVX512-BF16 the runtime multiplies with its dot-product instruction; elsewhere the same
  /// products are computed in float32 (exact for bfloat16 values), so the results agree on every
  /// CPU but for the order of the sums.
  BFloat16,
  /// Storage only: every op computes in float32, on the weights rounded to bfloat16.
  Float32,
};

/// The program with its float32 parameters and buffers of two or more dims (matrices,
/// convolution kernels, embedding tables: nearly all the bytes) stored as bfloat16, each
/// converted back to float32 where the program reads it, except the weights of linear layers
/// under Bf16Compute::BFloat16, which those layers read as they are. Convolutions, embeddings
/// and every other op compute in float32. The runtime multiplies and gathers the bfloat16
/// weights as they are (xport::bf16_linear). The saved program runs in PyTorch as it is.
ExportedProgram to_bf16(const ExportedProgram& program,
                        Bf16Compute compute = Bf16Compute::BFloat16);

}  // namespace xport::quant
