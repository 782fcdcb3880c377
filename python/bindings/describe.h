#pragma once
// What a program takes and gives, and its contract, as plain Python data (lists and dicts).
#include <nanobind/nanobind.h>

#include "xport/runtime.h"

namespace xport::python {

namespace nb = nanobind;

/// One dict per user input: name, kind ("tensor", "tensor_list", "int", "float", "bool"),
/// dtype, shape (ints for static dims, the dim's name or expression for dynamic ones).
nb::list describe_inputs(const runtime::Program& program);
/// One dict per user output: name, dtype, shape.
nb::list describe_outputs(const runtime::Program& program);
/// The contract as data: each symbol (name, the user's Dim name, source, min, max, unbacked),
/// the inputs' dims as text, the equalities between input dims (groups of dims that must be
/// equal, as `x.size(0)` texts), and the whole as readable text.
nb::dict describe_contract(const runtime::Program& program);

}  // namespace xport::python
