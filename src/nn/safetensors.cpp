#include "xport/nn/safetensors.h"

#include "tensor/checked_strides.h"
#include "tensor/file_mapping.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <system_error>
#include <tuple>
#include <unordered_set>

namespace xport {

// The format stores little-endian bytes and we read and write them raw; a big-endian host would
// need byte swaps on both paths.
static_assert(std::endian::native == std::endian::little,
              "safetensors I/O assumes a little-endian host");

namespace {

using Json = nlohmann::json;

// The format's own limit (safetensors' MAX_HEADER_SIZE); anything larger is corrupt or hostile.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct SafetensorsType {
  const char* name;
  DType dtype;
};
constexpr SafetensorsType kTypes[] = {
    {"BOOL", DType::Bool},   {"U8", DType::UInt8},      {"I8", DType::Int8},
    {"I16", DType::Int16},   {"I32", DType::Int32},     {"I64", DType::Int64},
    {"F16", DType::Float16}, {"BF16", DType::BFloat16}, {"F32", DType::Float32},
    {"F64", DType::Float64},
};

const char* safetensors_name(DType dtype) {
  for (const SafetensorsType& t : kTypes)
    if (t.dtype == dtype) return t.name;
  return "?";
}

std::optional<DType> parse_safetensors_dtype(const std::string& name) {
  for (const SafetensorsType& t : kTypes)
    if (name == t.name) return t.dtype;
  return std::nullopt;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// A JSON integer as int64, or nullopt for anything else (floats, strings, out-of-range values).
std::optional<int64_t> json_int(const Json& value) {
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  return std::nullopt;
}

// A read-only view of the whole file, mapped private and writable so tensors over it are
// copy-on-write. Owned by a shared_ptr whose deleter unmaps, so tensors keep it alive.
struct Entry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  int64_t begin = 0;
  int64_t end = 0;
};

Entry parse_entry(const std::string& path, const std::string& name, const Json& value,
                  int64_t data_bytes) {
  const std::string where = "read_safetensors(" + path + "): tensor '" + name + "': ";
  XPORT_CHECK(value.is_object(), InvalidArchive, where, "entry is a JSON ", value.type_name(),
              ", expected an object with dtype, shape and data_offsets");
  Entry e;
  e.name = name;

  const auto dtype_it = value.find("dtype");
  XPORT_CHECK(dtype_it != value.end(), InvalidArchive, where, "missing \"dtype\"");
  XPORT_CHECK(dtype_it->is_string(), InvalidArchive, where, "\"dtype\" is a JSON ",
              dtype_it->type_name(), ", expected a string such as \"F32\"");
  const std::string dtype_name_text = dtype_it->get<std::string>();
  const std::optional<DType> dtype = parse_safetensors_dtype(dtype_name_text);
  XPORT_CHECK(dtype.has_value(), InvalidArchive, where, "unknown or unsupported dtype \"",
              dtype_name_text,
              "\" (xport reads BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64); convert the "
              "tensor before saving");
  e.dtype = *dtype;

  const auto shape_it = value.find("shape");
  XPORT_CHECK(shape_it != value.end(), InvalidArchive, where, "missing \"shape\"");
  XPORT_CHECK(shape_it->is_array(), InvalidArchive, where, "\"shape\" is a JSON ",
              shape_it->type_name(), ", expected an array of integers");
  int64_t numel = 1;
  for (const Json& dim : *shape_it) {
    const std::optional<int64_t> d = json_int(dim);
    XPORT_CHECK(d.has_value(), InvalidArchive, where, "\"shape\" holds ", dim.dump(),
                ", expected non-negative integers");
    XPORT_CHECK(*d >= 0, InvalidArchive, where, "negative dim ", *d, " in shape ",
                shape_it->dump());
    XPORT_CHECK(!__builtin_mul_overflow(numel, *d, &numel), InvalidArchive, where, "shape ",
                shape_it->dump(), " overflows int64 elements");
    e.shape.push_back(*d);
  }
  XPORT_CHECK(!contiguous_strides_overflow(e.shape), InvalidArchive, where, "shape ",
              shape_it->dump(), " overflows int64 strides");
  int64_t nbytes = 0;
  XPORT_CHECK(!__builtin_mul_overflow(numel, element_size(e.dtype), &nbytes), InvalidArchive, where,
              "shape ", shape_it->dump(), " of ", dtype_name_text, " overflows int64 bytes");

  const auto offsets_it = value.find("data_offsets");
  XPORT_CHECK(offsets_it != value.end(), InvalidArchive, where, "missing \"data_offsets\"");
  XPORT_CHECK(offsets_it->is_array() && offsets_it->size() == 2, InvalidArchive, where,
              "\"data_offsets\" is ", offsets_it->dump(), ", expected [begin, end]");
  const std::optional<int64_t> begin = json_int((*offsets_it)[0]);
  const std::optional<int64_t> end = json_int((*offsets_it)[1]);
  XPORT_CHECK(begin && end && *begin >= 0 && *begin <= *end, InvalidArchive, where,
              "\"data_offsets\" ", offsets_it->dump(),
              " is not a range [begin, end] of non-negative integers with begin <= end");
  XPORT_CHECK(*end <= data_bytes, InvalidArchive, where, "data_offsets ", offsets_it->dump(),
              " out of range: the data section holds ", data_bytes,
              " bytes; the file is truncated or the header is wrong");
  e.begin = *begin;
  e.end = *end;
  XPORT_CHECK(e.end - e.begin == nbytes, InvalidArchive, where, "dtype/shape mismatch: shape ",
              shape_text(e.shape), " of ", dtype_name_text, " needs ", nbytes,
              " bytes, but data_offsets ", offsets_it->dump(), " hold ", e.end - e.begin);
  return e;
}

std::map<std::string, std::string> parse_metadata(const std::string& path, const Json& value) {
  std::map<std::string, std::string> metadata;
  if (value.is_null()) return metadata;  // serde's Option: null means no metadata
  XPORT_CHECK(value.is_object(), InvalidArchive, "read_safetensors(", path,
              "): \"__metadata__\" is a JSON ", value.type_name(),
              ", expected an object of string values");
  for (const auto& [key, item] : value.items()) {
    XPORT_CHECK(item.is_string(), InvalidArchive, "read_safetensors(", path,
                "): \"__metadata__\" entry '", key, "' is ", item.dump(),
                "; metadata values must be strings");
    metadata[key] = item.get<std::string>();
  }
  return metadata;
}

Tensor make_tensor(const Entry& e, char* data, const std::shared_ptr<void>& mapping) {
  TensorMeta meta;
  meta.sizes.assign(e.shape.begin(), e.shape.end());
  meta.strides = contiguous_strides(meta.sizes);
  meta.dtype = e.dtype;
  const int64_t nbytes = e.end - e.begin;
  char* p = data + e.begin;
  if (e.dtype == DType::Bool) {
    // Only 0 and 1 are valid bools; writing touches (copies) only pages that need it.
    for (int64_t i = 0; i < nbytes; ++i)
      if (static_cast<unsigned char>(p[i]) > 1) p[i] = 1;
  }
  // Kernels read elements through typed pointers, so a misaligned tensor (another writer's
  // unpadded header) gets its own aligned copy; empty tensors need no bytes of the file.
  const bool aligned = reinterpret_cast<uintptr_t>(p) % element_size(e.dtype) == 0;
  if (nbytes == 0 || !aligned) {
    std::shared_ptr<Storage> storage = Storage::allocate(nbytes);
    if (nbytes > 0) std::memcpy(storage->data(), p, static_cast<size_t>(nbytes));
    return Tensor::make(std::move(storage), std::move(meta));
  }
  return Tensor::make(Storage::wrap(p, nbytes, mapping), std::move(meta));
}

// Writes all of `bytes`, retrying short writes and EINTR; false with errno set on failure.
bool write_all(int fd, const char* bytes, size_t n) {
  while (n > 0) {
    const ssize_t written = ::write(fd, bytes, n);
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes += written;
    n -= static_cast<size_t>(written);
  }
  return true;
}

}  // namespace

SafetensorsContents read_safetensors(const std::string& path) {
  int64_t file_size = 0;
  const std::shared_ptr<void> mapping =
      detail::map_file(path, file_size, "read_safetensors(" + path + ")");
  // Too short to hold the header length (an empty file has no mapping at all).
  XPORT_CHECK(file_size >= 8, InvalidArchive, "read_safetensors(", path, "): the file is ",
              file_size,
              " bytes, shorter than the 8-byte header length; it is truncated or not a "
              "safetensors file");
  char* const base = static_cast<char*>(mapping.get());

  uint64_t header_len = 0;
  std::memcpy(&header_len, base, 8);
  XPORT_CHECK(header_len <= kMaxHeaderBytes, InvalidArchive, "read_safetensors(", path,
              "): header length ", header_len, " is absurd (over ", kMaxHeaderBytes,
              " bytes); the file is corrupt or not a safetensors file");
  XPORT_CHECK(header_len <= static_cast<uint64_t>(file_size - 8), InvalidArchive,
              "read_safetensors(", path, "): header length ", header_len,
              " is larger than the file (", file_size,
              " bytes); the file is truncated or not a safetensors file");

  Json header;
  try {
    header = Json::parse(base + 8, base + 8 + header_len);
  } catch (const Json::exception& e) {
    XPORT_FAIL(InvalidArchive, "read_safetensors(", path,
               "): header is not valid JSON: ", e.what());
  }
  XPORT_CHECK(header.is_object(), InvalidArchive, "read_safetensors(", path, "): header is a JSON ",
              header.type_name(), ", expected an object of tensors");

  char* const data = base + 8 + header_len;
  const int64_t data_bytes = file_size - 8 - static_cast<int64_t>(header_len);
  SafetensorsContents contents;
  std::vector<Entry> entries;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      contents.metadata = parse_metadata(path, value);
      continue;
    }
    entries.push_back(parse_entry(path, name, value, data_bytes));
  }

  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  // The spec forbids tensors sharing bytes; empty ranges hold none and cannot overlap.
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin == e.end) continue;
    XPORT_CHECK(previous == nullptr || previous->end <= e.begin, InvalidArchive,
                "read_safetensors(", path, "): overlapping tensors: '", previous->name,
                "' has data_offsets [", previous->begin, ", ", previous->end, "] and '", e.name,
                "' has [", e.begin, ", ", e.end, "]");
    previous = &e;
  }

  contents.tensors.reserve(entries.size());
  for (const Entry& e : entries)
    contents.tensors.emplace_back(e.name, make_tensor(e, data, mapping));
  return contents;
}

void write_safetensors(const std::string& path, const nn::NamedTensors& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<Tensor> contiguous;
  contiguous.reserve(tensors.size());
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::unordered_set<std::string> seen;
  int64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    XPORT_CHECK(name != "__metadata__", InvalidInput, "write_safetensors(", path,
                "): '__metadata__' is reserved for metadata; rename the tensor");
    XPORT_CHECK(seen.insert(name).second, InvalidInput, "write_safetensors(", path,
                "): duplicate tensor name '", name, "'; every name must be unique");
    XPORT_CHECK(t.defined(), InvalidInput, "write_safetensors(", path, "): tensor '", name,
                "' is undefined; drop it or give it a value");
    XPORT_CHECK(!t.is_fake(), InvalidInput, "write_safetensors(", path, "): tensor '", name,
                "' is a fake tensor (no data, made during capture); save real tensors");
    Tensor c = t.contiguous();
    const std::vector<int64_t> shape = c.int_sizes();
    const int64_t nbytes = c.int_numel() * c.element_size();
    header[name] = {{"dtype", safetensors_name(c.dtype())},
                    {"shape", shape},
                    {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
    contiguous.push_back(std::move(c));
  }

  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::ordered_json::exception& e) {
    XPORT_FAIL(InvalidInput, "write_safetensors(", path,
               "): a tensor name or metadata string is not valid UTF-8: ", e.what());
  }
  // Spaces after the JSON keep it valid and start the data 8-byte aligned.
  text.append((8 - text.size() % 8) % 8, ' ');
  const uint64_t header_len = text.size();

  // Write beside the target and rename, so a failed save never leaves a partial file.
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  XPORT_CHECK(fd >= 0, InvalidInput, "write_safetensors(", path, "): cannot create '", tmp,
              "': ", detail::errno_text(errno));
  bool ok = write_all(fd, reinterpret_cast<const char*>(&header_len), 8) &&
            write_all(fd, text.data(), text.size());
  for (size_t i = 0; ok && i < contiguous.size(); ++i) {
    const Tensor& c = contiguous[i];
    const int64_t nbytes = c.int_numel() * c.element_size();
    if (nbytes > 0)
      ok = write_all(fd, static_cast<const char*>(c.raw_data()), static_cast<size_t>(nbytes));
  }
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    XPORT_FAIL(InvalidInput, "write_safetensors(", path,
               "): write failed: ", detail::errno_text(err));
  }
}

void load_safetensors(nn::Module& module, const std::string& path) {
  module.load_state_dict(read_safetensors(path).tensors);
}

void save_safetensors(const nn::Module& module, const std::string& path) {
  nn::NamedTensors unique;
  std::set<const TensorImpl*> stored;
  for (auto& [name, t] : module.state_dict()) {
    if (t.defined() && !stored.insert(t.impl()).second) continue;  // tied: keep the first name
    unique.emplace_back(name, t);
  }
  write_safetensors(path, unique, {{"format", "pt"}});
}

}  // namespace xport
