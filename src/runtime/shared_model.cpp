#include "runtime/shared_model.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "runtime/model_cxx_abi.h"
#include "serde/serialize.h"
#include "xport/core/error.h"
#include "xport/ops/functions.h"
#include "xport/runtime/model_abi.h"
#include "xport/serde/archive.h"

namespace xport::runtime {

// The library's C functions, found by name.
struct SharedModel::Api {
  std::string path;
  void* handle = nullptr;
  xport_model* model = nullptr;
  decltype(&::xport_model_load) load = nullptr;
  decltype(&::xport_model_run) run = nullptr;
  decltype(&::xport_outputs_count) count = nullptr;
  decltype(&::xport_outputs_get) get = nullptr;
  decltype(&::xport_outputs_free) free_outputs = nullptr;
  decltype(&::xport_model_free) free_model = nullptr;
  decltype(&::xport_last_error) last_error = nullptr;
  decltype(&::xport_model_isa) isa = nullptr;
  decltype(&::xport_model_abi_version) version = nullptr;
  decltype(&::xport_model_embedded_archive) embedded = nullptr;  // absent from older libraries
  // The C++ entrance, where the library's C++ types are laid out as this build's; else null.
  decltype(&::xport_model_run_cxx) run_cxx = nullptr;

  Api() = default;
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;
  ~Api() {
    if (model != nullptr) free_model(model);
    if (handle != nullptr) dlclose(handle);
  }

  // Throws the library's error as xport::Error.
  void check(xport_status status) const {
    if (status == XPORT_OK) return;
    const int kind = static_cast<int>(status) - 1;
    const ErrorKind error_kind = kind >= 0 && kind <= static_cast<int>(ErrorKind::Internal)
                                     ? static_cast<ErrorKind>(kind)
                                     : ErrorKind::Internal;
    throw Error(error_kind, last_error());
  }
};

namespace {

template <class F>
void find(void* handle, const char* name, F& fn, const std::string& path) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
  XPORT_CHECK(fn != nullptr, InvalidArchive, "'", path, "' is a shared library but not a model "
              "compiled by xport (no ", name, "); compile one with `xport compile FILE.pt2 "
              "OUT.so`");
}

// `t` as the ABI sees it; its sizes, then strides, are appended to `dims` (which must have room
// for them: the pointers stay valid).
xport_tensor abi_tensor(const Tensor& t, std::vector<int64_t>& dims) {
  const size_t at = dims.size();
  for (const SymInt& s : t.sizes()) dims.push_back(*s.maybe_int());
  for (const SymInt& s : t.strides()) dims.push_back(*s.maybe_int());
  auto* base = static_cast<char*>(t.storage() ? t.storage()->data() : nullptr);
  if (base != nullptr) base += *t.storage_offset().maybe_int() * t.element_size();
  const auto ndim = static_cast<size_t>(t.dim());
  return xport_tensor{.data = base,
                      .dtype = static_cast<int32_t>(t.dtype()),
                      .ndim = static_cast<int32_t>(ndim),
                      .sizes = dims.data() + at,
                      .strides = dims.data() + at + ndim};
}

}  // namespace

// An ELF file (a shared library).
bool is_compiled_model(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' &&
         magic[3] == 'F';
}

std::string compiled_model_archive(const std::string& so_path) {
  return std::filesystem::path(so_path).replace_extension(".pt2").string();
}

SharedModel::SharedModel(const std::string& so_path, int num_threads)
    : api_(std::make_shared<Api>()) {
  const std::string path = std::filesystem::absolute(so_path).string();
  api_->path = path;
  // Never unloaded (RTLD_NODELETE): the library's code may still be referenced after the last
  // Program closes it (its static objects, the thread-local state of the threads that ran it).
  api_->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  XPORT_CHECK(api_->handle != nullptr, InvalidArchive, "cannot open the compiled model '", so_path,
              "': ", dlerror());
  // On a throw, api_'s destructor closes the library.
  find(api_->handle, "xport_model_abi_version", api_->version, path);
  XPORT_CHECK(api_->version() == XPORT_MODEL_ABI_VERSION, InvalidArchive, "'", so_path,
              "' has model ABI version ", api_->version(), "; this runtime reads version ",
              XPORT_MODEL_ABI_VERSION, ": compile it again with this xport");
  find(api_->handle, "xport_model_load", api_->load, path);
  find(api_->handle, "xport_model_run", api_->run, path);
  find(api_->handle, "xport_outputs_count", api_->count, path);
  find(api_->handle, "xport_outputs_get", api_->get, path);
  find(api_->handle, "xport_outputs_free", api_->free_outputs, path);
  find(api_->handle, "xport_model_free", api_->free_model, path);
  find(api_->handle, "xport_last_error", api_->last_error, path);
  find(api_->handle, "xport_model_isa", api_->isa, path);
  api_->embedded = reinterpret_cast<decltype(api_->embedded)>(
      dlsym(api_->handle, "xport_model_embedded_archive"));
  api_->check(api_->load(nullptr, num_threads, &api_->model));
  const auto layout =
      reinterpret_cast<decltype(&::xport_model_cxx_layout)>(dlsym(api_->handle,
                                                                 "xport_model_cxx_layout"));
  const char* force_c = std::getenv("XPORT_MODEL_C_ABI");
  if (layout != nullptr && std::strcmp(layout(), cxx_layout_id()) == 0 &&
      (force_c == nullptr || std::strcmp(force_c, "1") != 0)) {
    find(api_->handle, "xport_model_run_cxx", api_->run_cxx, path);
  }
}

std::string SharedModel::entrance() const {
  return api_->run_cxx != nullptr ? "C++ entrance (this build's types)" : "C ABI";
}

std::optional<ExportedProgram> SharedModel::embedded_program(ArchiveInfo& info) const {
  size_t size = 0;
  const void* data = api_->embedded != nullptr ? api_->embedded(&size) : nullptr;
  if (size == 0) return std::nullopt;
  info.file_bytes = static_cast<int64_t>(size);
  return serde::load_bytes(static_cast<const uint8_t*>(data), size, api_,
                           "the archive embedded in " + api_->path, info);
}

SharedModel::~SharedModel() = default;

std::string SharedModel::isa() const { return api_->isa(); }

std::vector<Tensor> SharedModel::run(const std::vector<Value>& inputs) const {
  if (api_->run_cxx != nullptr) {
    // Outputs own their memory (made by the library's runtime, freed by its code, which stays
    // loaded), as the runtime's own outputs do.
    std::vector<Tensor> out;
    api_->check(api_->run_cxx(api_->model, cxx_layout_id(), &inputs, &out));
    return out;
  }
  // Flattened as the ABI takes them: list elements in order, numbers as 0-d tensors.
  std::vector<Tensor> flat;
  flat.reserve(inputs.size());
  for (const Value& v : inputs) {
    if (v.is_list()) {
      for (const Tensor& t : v.to_tensor_list()) flat.push_back(t);
    } else if (v.is_tensor()) {
      flat.push_back(v.to_tensor());
    } else if (v.is_bool()) {
      flat.push_back(full(std::vector<int64_t>{}, Scalar(v.to_bool()), DType::Bool));
    } else if (v.is_int()) {
      flat.push_back(full(std::vector<int64_t>{}, Scalar(v.to_int()), DType::Int64));
    } else if (v.is_double()) {
      flat.push_back(full(std::vector<int64_t>{}, Scalar(v.to_double()), DType::Float64));
    } else {
      XPORT_FAIL(InvalidInput, "runtime::Program::run: an input of type ", v.type_name(),
                 "; a compiled model takes tensors, tensor lists, ints, floats and bools");
    }
  }
  size_t total = 0;
  for (const Tensor& t : flat) total += 2 * static_cast<size_t>(t.dim());
  std::vector<int64_t> dims;
  dims.reserve(total);  // abi_tensor's pointers into it stay valid
  std::vector<xport_tensor> abi;
  abi.reserve(flat.size());
  for (const Tensor& t : flat) abi.push_back(abi_tensor(t, dims));
  xport_outputs* raw = nullptr;
  api_->check(api_->run(api_->model, abi.data(), abi.size(), &raw));
  // Every output's storage keeps the library's outputs alive, and the library loaded; the last
  // one frees them.
  const std::shared_ptr<xport_outputs> outputs(
      raw, [api = api_](xport_outputs* o) { api->free_outputs(o); });
  std::vector<Tensor> out;
  out.reserve(api_->count(raw));
  for (size_t i = 0; i < api_->count(raw); ++i) {
    const xport_tensor t = api_->get(raw, i);
    TensorMeta meta;
    meta.dtype = static_cast<DType>(t.dtype);
    meta.sizes.assign(t.sizes, t.sizes + t.ndim);
    meta.strides = contiguous_strides(meta.sizes);
    out.push_back(Tensor::make(Storage::wrap(t.data, storage_bytes(meta), outputs), meta));
  }
  return out;
}

}  // namespace xport::runtime
