#pragma once
// The contract check that runs before any kernel: arity, kinds, dtypes, ranks, static dims,
// symbol ranges, equalities and derived dims, with errors naming the input and dim.

#include <unordered_map>
#include <vector>

#include "xport/program/exported_program.h"

namespace xport {

/// Checks `inputs` against `contract` and binds every symbol to its value in `bindings`.
/// Returns the input tensors flattened in placeholder order (list elements in place).
/// Throws InvalidInput.
std::vector<Tensor> check_inputs(const std::vector<InputContract>& contract,
                                 const std::vector<SymbolSpec>& symbols,
                                 const std::vector<Value>& inputs,
                                 std::unordered_map<sym::ExprPtr, int64_t>& bindings);

}  // namespace xport
