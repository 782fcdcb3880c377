#pragma once
// A model compiled ahead of time (a shared library with xport/runtime/model_abi.h's C ABI), opened
// so that runtime::Program runs it as it runs an archive: tensors in, tensors out, errors as
// xport::Error. The library holds its own copy of the runtime: a library of this build (the same
// C++ layouts) is called through its C++ entrance (runtime/model_cxx_abi.h), any other through its
// C ABI. XPORT_MODEL_C_ABI=1 in the environment takes the C ABI always.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "xport/program/exported_program.h"
#include "xport/runtime.h"
#include "xport/serde/archive.h"
#include "xport/tensor/value.h"

namespace xport::runtime {

class SharedModel {
 public:
  /// Opens `so_path` and loads it with the archive it embeds, else the one beside it. Throws
  /// InvalidArchive when it is not a compiled model, and what its load reports.
  SharedModel(const std::string& so_path, int num_threads);
  ~SharedModel();
  SharedModel(const SharedModel&) = delete;
  SharedModel& operator=(const SharedModel&) = delete;

  /// The contract's inputs (lists, numbers and tensors); thread-safe.
  std::vector<Tensor> run(const std::vector<Value>& inputs) const;
  /// How runs reach the library: "C++ entrance (this build's types)" or "C ABI".
  std::string entrance() const;
  /// The instruction-set extensions the library was compiled for.
  std::string isa() const;
  /// The program of the archive the library embeds (its tensors view the library's data), or
  /// nullopt when it reads the archive beside it.
  std::optional<ExportedProgram> embedded_program(ArchiveInfo& info) const;

 private:
  struct Api;
  // Shared with every output's storage: the library stays loaded while its outputs live.
  std::shared_ptr<Api> api_;
};

}  // namespace xport::runtime
