#pragma once
/// \file ONNX export: an ExportedProgram as an ONNX model that ONNX Runtime (and TensorRT,
/// OpenVINO, ...) runs, written through the ONNX C++ library. The program goes through
/// run_decompositions first, then each core op has one lowering to standard ONNX operators.
/// What the file holds (names, dims, the contract in metadata_props, buffer updates as extra
/// outputs) is described in docs/ONNX.md. Link xport::onnx.

#include <cstdint>
#include <map>
#include <string>

#include "xport/program/exported_program.h"

namespace xport::onnx {

struct Options {
  /// The default domain's opset; 17 is the newest Debian 12's libonnx-dev (1.12) knows.
  int opset = 17;
  /// Lowerings of custom ops as ONNX functions, by op name (`accel::conv2d`): the function's
  /// text in ONNX's textual syntax (onnx/defs/parser.h), e.g.
  /// `<domain: "accel", opset_import: ["": 17]> conv2d (x, w) => (y) { y = Conv(x, w) }`. It
  /// is added to the model's functions, and the op's nodes call it. A custom op not listed here
  /// becomes a node of the domain named by its namespace, which the engine must provide.
  std::map<std::string, std::string> functions = {};
  /// Dynamic dims written as fixed sizes, by name (a symbol's `s0`, a Dim's `batch` or a
  /// source's `x.size(0)`) with a value inside the contract: for engines that import static
  /// shapes only (Apache TVM). The model's contract then holds those values.
  std::map<std::string, int64_t> static_dims = {};
};

/// Writes `program` as an ONNX model to `path`: user inputs as graph inputs (dynamic dims as
/// `dim_param`s named by the user's Dims), parameters and constants as initializers (in a
/// `PATH.data` file beside it past 2 GB), results then updated buffers and inputs as outputs,
/// the contract in metadata_props. The model passes the ONNX checker before it is written.
/// Throws UnsupportedOp naming the op and its node's source line for a node with no lowering,
/// InvalidInput for an opset outside [17, 17]; on any error no file is left behind.
void save(const ExportedProgram& program, const std::string& path, Options options = {});

/// What an .onnx file save() wrote says about itself, for `xport inspect FILE.onnx`: the graph's
/// inputs and outputs with their dims, the opset and node count, and the contract from its
/// metadata_props (the symbols' ranges and sources, the runtime assertions). InvalidArchive for
/// a file that is not an ONNX model.
std::string describe(const std::string& path);

}  // namespace xport::onnx
