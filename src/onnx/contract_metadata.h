#pragma once
// The contract of a program in an ONNX model's metadata_props, since ONNX cannot check it:
// inputs with their dims, each symbol's range and source, the runtime assertions, what each
// output is. The keys and their JSON are described in docs/ONNX.md.
#include <onnx/onnx_pb.h>

#include <functional>
#include <string>

#include "xport/program/exported_program.h"

namespace xport::onnx {

/// Adds the contract of `program` to `model`'s metadata_props; `dim_name` prints a symbol as
/// the user's Dim.
void write_contract(const ExportedProgram& program, ::onnx::ModelProto& model,
                    const std::function<std::string(sym::ExprPtr)>& dim_name);

/// The contract a model carries, as text (empty when it carries none).
std::string describe_contract(const ::onnx::ModelProto& model);

}  // namespace xport::onnx
