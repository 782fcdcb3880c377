#pragma once
// C++ declarations derived from the registry, written at build time by tools/apigen: nothing of
// them is written by hand per op. An op registered with its schema and typed kernel is reachable
// from C++ as `xport::aten::<name>(...)`, and its kernel is declared for generated code.

#include <string>

namespace xport::ops {

/// `xport/aten.h`: one inline function per registered `aten::` op, its parameters and defaults
/// the schema's, calling the op through the dispatcher (eager, or recorded under capture).
/// Overloads share the op's base name; C++ overloading picks among them by the arguments' types.
/// Ops a C++ signature cannot express are listed in `xport::aten::kNotGenerated` with the reason.
std::string aten_api_header();

/// `xport/kernels.h`: the declaration of every typed kernel (OpDef::kernel.symbol), the
/// functions eager execution and the runtime call and that generated code calls by name.
std::string kernel_declarations_header();

/// A source file holding the address of every kernel `kernel_declarations_header()` declares,
/// cast to the declared type: linked into a test, a declaration no definition matches fails the
/// build.
std::string kernel_references_source();

}  // namespace xport::ops
