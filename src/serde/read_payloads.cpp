// The parameters, buffers and constants of a PT2 archive: each payload entry viewed in place
// where it is aligned for its elements (copied once where not), every size checked first.

#include <cstring>
#include <limits>

#include "serde/program_reader.h"
#include "serde/pt2_format.h"
#include "xport/core/error.h"

namespace xport::serde {
namespace {

bool multiply_overflows(int64_t a, int64_t b, int64_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}
bool add_overflows(int64_t a, int64_t b, int64_t& out) {
  return __builtin_add_overflow(a, b, &out);
}

}  // namespace

std::optional<PayloadReader::PayloadConfig> PayloadReader::config(const char* path) {
  const ZipEntry* e = zip_.find(root_ + path);
  if (e == nullptr) return std::nullopt;
  PayloadConfig c{Json(), what_ + ": " + path};
  c.doc = parse_json(*e, c.file);
  return c;
}

std::shared_ptr<Storage> PayloadReader::storage(const std::string& name, const Field& where,
                                                int64_t element) {
  if (auto it = storages_.find(name); it != storages_.end()) return it->second;
  const ZipEntry* e = zip_.find(root_ + name);
  if (e == nullptr) where.fail("payload " + name + " is not in the archive");
  if (e->size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    where.fail("payload too large");
  std::shared_ptr<Storage> s;
  if (reinterpret_cast<uintptr_t>(e->data) % static_cast<uintptr_t>(element) == 0) {
    s = Storage::wrap(const_cast<uint8_t*>(e->data), static_cast<int64_t>(e->size),
                      std::const_pointer_cast<void>(owner_));
  } else {
    // Not aligned for its elements (another writer): copied once.
    s = Storage::allocate(static_cast<int64_t>(e->size));
    std::memcpy(s->data(), e->data, e->size);
  }
  storages_[name] = s;
  return s;
}

Tensor PayloadReader::payload(const Field& meta, const char* dir, const ir::TensorSpec& expected,
                              const std::string& fqn, int64_t& count, int64_t& bytes) {
  if (meta["use_pickle"].to_bool()) {
    meta["use_pickle"].fail(
        "pickled payloads (custom objects, tensor subclasses) are not supported by xport");
  }
  const Field tm = meta["tensor_meta"];
  const ir::TensorSpec spec = symbols_.tensor_spec(tm);
  TensorMeta t;
  t.dtype = spec.dtype;
  int64_t last = 0;  // largest element index touched
  bool empty = false;
  for (size_t d = 0; d < spec.sizes.size(); ++d) {
    const auto size = sym::as_int(spec.sizes[d]);
    const auto stride = sym::as_int(spec.strides[d]);
    if (!size || !stride) tm.fail("a stored tensor must have constant sizes and strides");
    int64_t extent;
    if (multiply_overflows(*size > 0 ? *size - 1 : 0, *stride, extent) ||
        add_overflows(last, extent, last)) {
      tm["strides"].fail("sizes and strides overflow 64 bits");
    }
    empty = empty || *size == 0;
    t.sizes.emplace_back(*size);
    t.strides.emplace_back(*stride);
  }
  const int64_t offset = spec.storage_offset ? *sym::as_int(spec.storage_offset) : 0;
  t.storage_offset = offset;
  const std::string name = std::string(dir) + meta["path_name"].to_string();
  const int64_t element = element_size(spec.dtype);
  const bool first_use = !storages_.count(name);  // a shared payload's bytes count once
  std::shared_ptr<Storage> s = storage(name, meta["path_name"], element);
  int64_t end = 0;
  if (add_overflows(last, offset, end) || add_overflows(end, 1, end) ||
      multiply_overflows(end, element, end) || (!empty && end > s->nbytes())) {
    tm.fail("tensor '" + fqn + "' needs " + std::to_string(end) + " bytes (offset " +
            std::to_string(offset) + "), but its payload " + name + " has " +
            std::to_string(s->nbytes()));
  }
  if (spec.dtype != expected.dtype || spec.sizes != expected.sizes) {
    tm.fail("tensor '" + fqn + "' is " + spec.str() + ", but its graph input is " +
            expected.str());
  }
  if (first_use) bytes += s->nbytes();
  ++count;
  return Tensor::make(s, std::move(t));
}

std::map<std::string, Tensor> PayloadReader::read_state(const GraphSignature& sig,
                                                        const ir::Graph& graph) {
  std::optional<PayloadConfig> weights = config(kWeightsConfigPath);
  std::optional<PayloadConfig> constants = config(kConstantsConfigPath);
  std::map<std::string, Tensor> state;
  const auto placeholders = graph.placeholders();
  for (size_t i = 0; i < sig.inputs.size(); ++i) {
    const InputSpec& in = sig.inputs[i];
    if (in.kind == InputSpec::Kind::UserInput) continue;
    const bool is_weight = in.kind == InputSpec::Kind::Parameter ||
                           (in.kind == InputSpec::Kind::Buffer && in.persistent);
    std::optional<PayloadConfig>& c = is_weight ? weights : constants;
    const char* config_path = is_weight ? kWeightsConfigPath : kConstantsConfigPath;
    XPORT_CHECK(c.has_value(), InvalidArchive, what_, ": ", in.target, " needs ", config_path,
                ", which the archive does not have");
    const Field entries = Field(c->doc, "", c->file)["config"];
    const auto it = entries.json().find(in.target);
    if (it == entries.json().end()) entries.fail("no entry for '" + in.target + "'");
    const Field meta(*it, "config." + in.target, c->file);
    if (state.count(in.target)) continue;  // two inputs of one tensor
    state[in.target] =
        payload(meta, is_weight ? kWeightsDir : kConstantsDir, placeholders[i]->outputs()[0],
                in.target, is_weight ? info_.weight_count : info_.constant_count,
                is_weight ? info_.weight_bytes : info_.constant_bytes);
  }
  return state;
}

}  // namespace xport::serde
