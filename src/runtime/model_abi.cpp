// The C ABI of a compiled model (xport/runtime/model_abi.h): the generated code's graph, between
// the same contract check and write-back as runtime::Program. Linked into every model library;
// nothing else calls it.

#include <dlfcn.h>

#include <cstring>
#include <mutex>

#include "kernels/cpu/parallel.h"
#include "program/write_back.h"
#include "runtime/model_cxx_abi.h"
#include "runtime/run_inputs.h"
#include "serde/serialize.h"
#include "xport/runtime/aot_model.h"
#include "xport/runtime/model_abi.h"
#include "xport/serde/archive.h"

// The generated code defines it; weak, so that a program linking the whole runtime library
// (the xport tool) links without one.
__attribute__((weak)) xport::aot::CompiledModel* xport_aot_new_model();
// The archive a library compiled with embedded weights carries (aot::Options::embed_archive):
// its bytes, 64-byte aligned as the archive's tensors need, between these symbols.
extern "C" __attribute__((weak)) const unsigned char xport_aot_archive_begin[];
extern "C" __attribute__((weak)) const unsigned char xport_aot_archive_end[];

struct xport_model {
  explicit xport_model(xport::ExportedProgram p) : program(std::move(p)) {}
  std::unique_ptr<xport::aot::CompiledModel> code;
  xport::ExportedProgram program;
  std::vector<xport::Tensor> placeholders;  // the archive's, then the load-time passes' constants
  std::vector<bool> is_user_input;
  int num_threads = 0;
  bool mutates_state = false;
  mutable std::mutex state_mutex;  // a program that updates buffers runs one call at a time
  size_t num_inputs = 0;
  size_t num_outputs = 0;
};

struct xport_outputs {
  std::vector<xport::Tensor> tensors;
  std::vector<std::vector<int64_t>> sizes;
};

namespace {

using namespace xport;

thread_local std::string last_error;

// Runs `body`, turning what it throws into a status and this thread's message.
template <class F>
xport_status guarded(F&& body) {
  try {
    body();
    return XPORT_OK;
  } catch (const Error& e) {
    last_error = e.what();
    return static_cast<xport_status>(static_cast<int>(e.kind()) + 1);
  } catch (const std::exception& e) {
    last_error = e.what();
    return XPORT_INTERNAL;
  }
}

// NAME.pt2 beside this library (NAME.so).
std::string archive_beside_library() {
  Dl_info info{};
  XPORT_CHECK(dladdr(reinterpret_cast<void*>(&xport_model_load), &info) != 0 &&
                  info.dli_fname != nullptr,
              InvalidArchive, "xport_model_load: cannot tell where this library lies; give the "
              "archive's path");
  std::string path = info.dli_fname;
  const size_t dot = path.rfind('.');
  const size_t slash = path.rfind('/');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) path.resize(dot);
  return path + ".pt2";
}

// The program of the archive the library embeds; its tensors are views of the library's data,
// which stays mapped (the library is never unloaded while a model it made lives).
ExportedProgram embedded_program(const void* bytes, size_t size) {
  static int anchor = 0;
  const std::shared_ptr<void> library_data(&anchor, [](void*) {});
  ArchiveInfo info;
  return serde::load_bytes(static_cast<const uint8_t*>(bytes), size, library_data,
                           "the archive embedded in this library", info);
}

size_t flat_input_count(const std::vector<InputContract>& contract) {
  size_t n = 0;
  for (const InputContract& c : contract) {
    n += c.kind == InputContract::Kind::TensorList ? c.elements.size() : 1;
  }
  return n;
}

Tensor tensor_of(const xport_tensor& t, size_t index) {
  XPORT_CHECK(t.dtype >= 0 && t.dtype < kNumDTypes && t.ndim >= 0 &&
                  (t.ndim == 0 || t.sizes != nullptr),
              InvalidInput, "xport_model_run: input ", index, " has dtype ", t.dtype, " and ",
              t.ndim, " dims", t.ndim > 0 && t.sizes == nullptr ? " but no sizes" : "",
              "; give an xport_dtype and the sizes");
  TensorMeta meta;
  meta.dtype = static_cast<DType>(t.dtype);
  const auto ndim = static_cast<size_t>(t.ndim);
  meta.sizes.assign(t.sizes, t.sizes + ndim);
  if (t.strides != nullptr) {
    meta.strides.assign(t.strides, t.strides + ndim);
  } else {
    meta.strides = contiguous_strides(meta.sizes);
  }
  int64_t last = 0;  // the farthest element, to size the storage
  bool empty = false;
  for (size_t d = 0; d < ndim; ++d) {
    const int64_t size = *meta.sizes[d].maybe_int(), stride = *meta.strides[d].maybe_int();
    XPORT_CHECK(size >= 0 && stride >= 0, InvalidInput, "xport_model_run: input ", index,
                " has a negative size or stride in dim ", d);
    empty = empty || size == 0;
    if (size > 0) last += (size - 1) * stride;
  }
  XPORT_CHECK(t.data != nullptr || empty, InvalidInput, "xport_model_run: input ", index,
              " has no data");
  const int64_t bytes = empty ? 0 : (last + 1) * static_cast<int64_t>(element_size(meta.dtype));
  return Tensor::make(aot::unowned_storage(t.data, bytes), std::move(meta));
}

// The contract's inputs from the flat list: lists from their elements, numbers from 0-d
// tensors.
std::vector<Value> values_of(const std::vector<InputContract>& contract,
                             const xport_tensor* inputs, size_t count) {
  XPORT_CHECK(count == flat_input_count(contract) && (inputs != nullptr || count == 0),
              InvalidInput, "xport_model_run: ", count, " inputs given, the model takes ",
              flat_input_count(contract), " (lists flattened, numbers as 0-d tensors)");
  std::vector<Value> values;
  size_t next = 0;
  for (const InputContract& c : contract) {
    if (c.kind == InputContract::Kind::TensorList) {
      std::vector<Tensor> list;
      for (size_t e = 0; e < c.elements.size(); ++e, ++next) {
        list.push_back(tensor_of(inputs[next], next));
      }
      values.emplace_back(std::move(list));
      continue;
    }
    Tensor t = tensor_of(inputs[next], next);
    ++next;
    if (c.kind == InputContract::Kind::Tensor) {
      values.emplace_back(std::move(t));
      continue;
    }
    XPORT_CHECK(t.dim() == 0, InvalidInput, "xport_model_run: input '", c.name, "' is a ",
                to_string(c.kind), "; pass it as a 0-d tensor, not one of ", t.dim(), " dims");
    const Scalar s = t.item_scalar();
    if (c.kind == InputContract::Kind::Int) values.emplace_back(s.to_int());
    if (c.kind == InputContract::Kind::Float) values.emplace_back(s.to_double());
    if (c.kind == InputContract::Kind::Bool) values.emplace_back(s.to_bool());
  }
  return values;
}

// Checks `values` against the contract (InvalidInput outside it, with the runtime's message) and
// runs the model, as runtime::Program runs an archive.
std::vector<Tensor> run_model(const xport_model& model, const std::vector<Value>& values) {
  std::unordered_map<sym::ExprPtr, int64_t> symbols;
  std::vector<Tensor> user;
  const std::vector<Tensor> bound = runtime::bind_run_inputs(
      model.program, model.placeholders, model.is_user_input, values, symbols, &user);
  const kernels::cpu::ThreadCountScope threads(model.num_threads);
  std::unique_lock<std::mutex> state_lock(model.state_mutex, std::defer_lock);
  if (model.mutates_state) state_lock.lock();
  return write_back_mutations(model.program.signature(), model.code->run(bound, symbols),
                              model.program.state(), user);
}

}  // namespace

extern "C" {

uint32_t xport_model_abi_version(void) { return XPORT_MODEL_ABI_VERSION; }

xport_status xport_model_load(const char* archive_path, int32_t num_threads,
                              xport_model** model) {
  return guarded([&] {
    XPORT_CHECK(model != nullptr, InvalidInput, "xport_model_load: model is NULL");
    *model = nullptr;
    XPORT_CHECK(xport_aot_new_model != nullptr, InvalidArchive,
                "xport_model_load: this library holds no compiled model");
    XPORT_CHECK(num_threads >= 0, InvalidInput, "xport_model_load: num_threads is ", num_threads,
                "; give a positive count, or 0 for the machine's cores");
    size_t embedded = 0;
    const void* bytes = xport_model_embedded_archive(&embedded);
    auto m = std::make_unique<xport_model>(
        archive_path != nullptr ? load(archive_path)
        : embedded > 0          ? embedded_program(bytes, embedded)
                                : load(archive_beside_library()));
    m->code.reset(xport_aot_new_model());
    m->num_threads = num_threads;
    runtime::ProgramPlaceholders placeholders = runtime::program_placeholders(m->program);
    m->placeholders = std::move(placeholders.tensors);
    m->is_user_input = std::move(placeholders.is_user_input);
    m->code->load(m->program, m->placeholders);
    m->is_user_input.resize(m->placeholders.size(), false);
    m->mutates_state = !buffer_updates(m->program.signature()).empty();
    m->num_inputs = flat_input_count(m->program.contract());
    for (const OutputSpec& o : m->program.signature().outputs) {
      m->num_outputs += o.kind == OutputSpec::Kind::UserOutput ? 1 : 0;
    }
    *model = m.release();
  });
}

size_t xport_model_num_inputs(const xport_model* model) {
  return model != nullptr ? model->num_inputs : 0;
}

size_t xport_model_num_outputs(const xport_model* model) {
  return model != nullptr ? model->num_outputs : 0;
}

xport_status xport_model_run(const xport_model* model, const xport_tensor* inputs,
                             size_t num_inputs, xport_outputs** outputs) {
  return guarded([&] {
    XPORT_CHECK(model != nullptr && outputs != nullptr, InvalidInput,
                "xport_model_run: model and outputs must not be NULL");
    *outputs = nullptr;
    std::vector<Tensor> results =
        run_model(*model, values_of(model->program.contract(), inputs, num_inputs));
    auto out = std::make_unique<xport_outputs>();
    for (Tensor& t : results) {
      if (!t.is_contiguous() || t.storage_offset().maybe_int() != std::optional<int64_t>(0)) {
        t = t.clone();
      }
      out->sizes.push_back(t.int_sizes());
      out->tensors.push_back(std::move(t));
    }
    *outputs = out.release();
  });
}

const char* xport_model_cxx_layout(void) { return runtime::cxx_layout_id(); }

xport_status xport_model_run_cxx(const xport_model* model, const char* layout, const void* inputs,
                                 void* outputs) {
  return guarded([&] {
    XPORT_CHECK(model != nullptr && inputs != nullptr && outputs != nullptr, InvalidInput,
                "xport_model_run_cxx: model, inputs and outputs must not be NULL");
    XPORT_CHECK(layout != nullptr && std::strcmp(layout, runtime::cxx_layout_id()) == 0,
                Internal, "xport_model_run_cxx: the host's C++ types are laid out as ",
                layout != nullptr ? layout : "(NULL)", ", this library's as ",
                runtime::cxx_layout_id(), "; call xport_model_run");
    *static_cast<std::vector<Tensor>*>(outputs) =
        run_model(*model, *static_cast<const std::vector<Value>*>(inputs));
  });
}

size_t xport_outputs_count(const xport_outputs* outputs) {
  return outputs != nullptr ? outputs->tensors.size() : 0;
}

xport_tensor xport_outputs_get(const xport_outputs* outputs, size_t index) {
  if (outputs == nullptr || index >= outputs->tensors.size()) return xport_tensor{};
  const Tensor& t = outputs->tensors[index];
  return xport_tensor{.data = t.defined() ? t.storage()->data() : nullptr,
                      .dtype = static_cast<int32_t>(t.dtype()),
                      .ndim = static_cast<int32_t>(t.dim()),
                      .sizes = outputs->sizes[index].data(),
                      .strides = nullptr};
}

void xport_outputs_free(xport_outputs* outputs) { delete outputs; }

void xport_model_free(xport_model* model) { delete model; }

const char* xport_last_error(void) { return last_error.c_str(); }

const void* xport_model_embedded_archive(size_t* size) {
  const bool embeds = xport_aot_archive_begin != nullptr && xport_aot_archive_end != nullptr;
  if (size != nullptr) {
    *size = embeds ? static_cast<size_t>(xport_aot_archive_end - xport_aot_archive_begin) : 0;
  }
  return embeds ? xport_aot_archive_begin : nullptr;
}

const char* xport_model_isa(void) {
  static const std::string isa =
      xport_aot_new_model != nullptr
          ? std::unique_ptr<aot::CompiledModel>(xport_aot_new_model())->isa()
          : std::string();
  return isa.c_str();
}

}  // extern "C"
