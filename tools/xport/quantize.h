#pragma once
// `xport quantize FILE OUT --scheme S [--calibrate DIR] [--group-size N]`: an archive's program
// quantized by xport::quant (static int8 calibrated on the input sets in DIR), saved as a new
// archive that PyTorch loads too.

#include <ostream>
#include <string>

namespace xport::tools {

struct QuantizeOptions {
  std::string archive, out;
  std::string scheme;     ///< static-int8, dynamic-int8, int8-weight or int4-weight
  std::string calibrate;  ///< static-int8: a folder of input sets (see quantize.cpp)
  int64_t group_size = 128;
};

/// Quantizes, saves `out` and reports what changed on `report`; returns the exit status (0).
/// Errors (no calibration for static-int8, a calibration set that does not fit the contract)
/// propagate as xport::Error.
int run_quantize(const QuantizeOptions& options, std::ostream& report);

}  // namespace xport::tools
