#pragma once
// The fuzzer's programs written in PyTorch: the same steps as eager C++ (run_program) spelled as
// a torch.nn.Module, with the same Dims as torch.export.Dim, so that what xport's export accepts
// can be compared with what torch.export accepts for the same program.
#include <string>

#include "program_generator.h"

namespace xport::soundness {

/// A Python module that defines `Program` (a torch.nn.Module with the buffer `state`) whose
/// forward(x0, x1, ...) runs the spec's steps, and `dynamic_shapes` for torch.export.export.
std::string torch_source(const ProgramSpec& spec);

}  // namespace xport::soundness
