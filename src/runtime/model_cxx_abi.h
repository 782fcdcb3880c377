#pragma once
// The C++ entrance of a model library, beside its C ABI (xport/runtime/model_abi.h), for a host of
// the same build: runtime::Program::load("m.so") passes its Values and takes Tensors directly, with
// no C structs to marshal on either side. The library carries its own copy of the runtime, so only
// a host whose types are laid out alike may use it: the same public headers, compiled by the same
// compiler (cxx_layout_id, from cmake/layout_id.cmake). Errors still come back as the C ABI's
// status and xport_last_error(): a C++ exception does not cross.

#include "xport/runtime/model_abi.h"

namespace xport::runtime {

/// A hash of xport's public headers, and the compiler's version.
const char* cxx_layout_id();

}  // namespace xport::runtime

extern "C" {
/// The library's cxx_layout_id().
const char* xport_model_cxx_layout(void);
/// xport_model_run for a host whose cxx_layout_id() is `layout` (checked again here):
/// `inputs` is a `const std::vector<xport::Value>*` (the contract's inputs, as
/// runtime::Program::run_values takes them), `outputs` a `std::vector<xport::Tensor>*` that gets
/// the results, laid out as the runtime returns them.
xport_status xport_model_run_cxx(const xport_model* model, const char* layout, const void* inputs,
                                 void* outputs);
}
