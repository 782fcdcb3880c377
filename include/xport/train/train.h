#pragma once
/// \file Training: gradients of a captured program, as one more program.

#include <string>
#include <vector>

#include "xport/program/exported_program.h"

namespace xport::train {

/// The gradients of a program that returns one 0-dim floating loss. The result takes the same
/// inputs under the same contract and returns the loss, then d loss / d each name of `wrt`, in
/// that order: a parameter or buffer by its path (`fc.weight`) or a user input by its name
/// (`x`). Buffer updates of the program stay, first, as in any exported program.
///
/// Each op on the way from the loss back to `wrt` is differentiated by its derivative rule
/// (OpDef::derivative); an op without one is decomposed into ops that have one where it can be.
/// Errors: InvalidSpec when the program does not return one 0-dim floating loss, when a name of
/// `wrt` is no input or is not floating, or when it does not reach the loss; UnsupportedOp
/// naming the op and the user's line when an op on the way has no derivative.
ExportedProgram grad(const ExportedProgram& program, const std::vector<std::string>& wrt);

}  // namespace xport::train
