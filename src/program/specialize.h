#pragma once
// A program specialised to some of its dynamic dims: for consumers that take static shapes only
// (Apache TVM's ONNX importer), `xport onnx --static batch=1`.

#include <cstdint>
#include <map>
#include <string>

#include "xport/program/exported_program.h"

namespace xport {

/// `program` with the named dims fixed. A name is a symbol's (`s0`), its Dim's (`batch`) or its
/// source's (`x.size(0)`); its value must lie in the symbol's range. The graph and the contract
/// then hold the values; the other symbols stay dynamic. Throws InvalidInput for a name no
/// dynamic dim has (listing those there are) or a value outside the range.
ExportedProgram specialize(const ExportedProgram& program,
                           const std::map<std::string, int64_t>& dims);

}  // namespace xport
