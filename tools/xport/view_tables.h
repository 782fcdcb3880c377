#pragma once
// The signature and the contract of a program as HTML tables, for `xport view`'s side panel:
// user inputs with their symbolic shapes, each Dim with its range and the input dims it sizes
// (equal dims share one symbol; derived ones are expressions of it), outputs, and the
// parameters, buffers and constants grouped by module.

#include <string>

#include <nlohmann/json.hpp>

#include "xport/program/exported_program.h"

namespace xport::tools {

/// The tables; `weights` is weight_details(program) (a row of a weight carries
/// data-weight="NAME", which the page opens in the properties panel).
std::string signature_tables(const ExportedProgram& program, const nlohmann::json& weights);

}  // namespace xport::tools
