#include "xport/npy.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace xport {
namespace {

struct NpyType {
  char kind;  // b, u, i, f, c
  int size;
  DType dtype;
};
constexpr NpyType kTypes[] = {
    {'b', 1, DType::Bool},    {'u', 1, DType::UInt8},   {'i', 1, DType::Int8},
    {'i', 2, DType::Int16},   {'i', 4, DType::Int32},   {'i', 8, DType::Int64},
    {'f', 2, DType::Float16}, {'f', 4, DType::Float32}, {'f', 8, DType::Float64},
    {'c', 8, DType::Complex64}, {'c', 16, DType::Complex128},
};

std::string descr_of(DType dtype, const std::string& path) {
  for (const NpyType& t : kTypes) {
    if (t.dtype == dtype) {
      return std::string(t.size == 1 ? "|" : "<") + t.kind + std::to_string(t.size);
    }
  }
  XPORT_FAIL(InvalidInput, "save_npy(", path, "): NumPy has no ", dtype_name(dtype),
             " dtype; convert with .to(DType::Float32) first");
}

// Finds `'key': value` in the header dict and returns the raw value text.
std::string header_value(const std::string& header, const std::string& key,
                         const std::string& path) {
  const size_t k = header.find("'" + key + "'");
  XPORT_CHECK(k != std::string::npos, InvalidInput, "load_npy(", path, "): header has no '", key,
              "' field: ", header);
  size_t v = header.find(':', k);
  XPORT_CHECK(v != std::string::npos, InvalidInput, "load_npy(", path,
              "): malformed header: ", header);
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  size_t end = v;
  if (header[v] == '(') {
    end = header.find(')', v);
    XPORT_CHECK(end != std::string::npos, InvalidInput, "load_npy(", path,
                "): malformed shape in header");
    return header.substr(v, end - v + 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(v, end - v);
}

}  // namespace

Tensor load_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  XPORT_CHECK(in.good(), InvalidInput, "load_npy: cannot open '", path, "'");
  char magic[8];
  in.read(magic, 8);
  XPORT_CHECK(in.gcount() == 8 && std::memcmp(magic, "\x93NUMPY", 6) == 0, InvalidInput,
              "load_npy(", path, "): not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  uint32_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    in.read(reinterpret_cast<char*>(b), 2);
    header_len = b[0] | (b[1] << 8);
  } else {
    XPORT_CHECK(major == 2 || major == 3, InvalidInput, "load_npy(", path,
                "): unsupported format version ", major);
    unsigned char b[4];
    in.read(reinterpret_cast<char*>(b), 4);
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  }
  XPORT_CHECK(in.good() && header_len < (1u << 20), InvalidInput, "load_npy(", path,
              "): bad header length");
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  XPORT_CHECK(in.gcount() == static_cast<std::streamsize>(header_len), InvalidInput, "load_npy(",
              path, "): file ends inside the header");

  std::string descr = header_value(header, "descr", path);
  descr.erase(std::remove(descr.begin(), descr.end(), '\''), descr.end());
  const bool fortran =
      header_value(header, "fortran_order", path).find("True") != std::string::npos;
  const std::string shape_text = header_value(header, "shape", path);

  XPORT_CHECK(descr.size() >= 3, InvalidInput, "load_npy(", path, "): bad dtype '", descr, "'");
  const char order = descr[0];
  const char kind = descr[1];
  const int size = std::atoi(descr.c_str() + 2);
  const NpyType* type = nullptr;
  for (const NpyType& t : kTypes)
    if (t.kind == kind && t.size == size) type = &t;
  XPORT_CHECK(type != nullptr, InvalidInput, "load_npy(", path, "): dtype '", descr,
              "' has no xport equivalent (supported: bool, uint8, int8-64, float16-64, "
              "complex64, complex128)");
  const bool big_endian = order == '>';

  std::vector<int64_t> shape;
  std::stringstream ss(shape_text.substr(1, shape_text.size() - 2));
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.find_first_not_of(' ') == std::string::npos) continue;
    const long long v = std::atoll(item.c_str());
    XPORT_CHECK(v >= 0, InvalidInput, "load_npy(", path, "): negative dim in shape ", shape_text);
    shape.push_back(v);
  }
  // Fortran order is C order of the reversed shape, transposed back.
  std::vector<int64_t> storage_shape = shape;
  if (fortran) std::reverse(storage_shape.begin(), storage_shape.end());
  Tensor t = Tensor::empty_contiguous(storage_shape, type->dtype);
  const int64_t nbytes = t.int_numel() * size;
  in.read(static_cast<char*>(t.raw_data()), nbytes);
  XPORT_CHECK(in.gcount() == nbytes, InvalidInput, "load_npy(", path, "): data is ", in.gcount(),
              " bytes, the header says ", nbytes);
  if (big_endian && size > 1) {
    // A complex number swaps its two parts' bytes each.
    const int part = kind == 'c' ? size / 2 : size;
    char* p = static_cast<char*>(t.raw_data());
    for (int64_t i = 0; i < nbytes; i += part) std::reverse(p + i, p + i + part);
  }
  if (type->dtype == DType::Bool) {
    uint8_t* p = static_cast<uint8_t*>(t.raw_data());
    for (int64_t i = 0; i < nbytes; ++i) p[i] = p[i] != 0;  // only 0/1 are valid bools
  }
  if (fortran && shape.size() > 1) {
    std::vector<int64_t> dims(shape.size());
    for (size_t i = 0; i < dims.size(); ++i) dims[i] = static_cast<int64_t>(dims.size() - 1 - i);
    t = t.permute(dims).contiguous();
  }
  return t;
}

void save_npy(const Tensor& t, const std::string& path) {
  const std::string descr = descr_of(t.dtype(), path);
  const Tensor c = t.contiguous();
  std::string shape = "(";
  for (int64_t d = 0; d < c.dim(); ++d)
    shape += std::to_string(c.int_size(d)) + (c.dim() == 1 ? "," : d + 1 < c.dim() ? ", " : "");
  shape += ")";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts at a multiple of 64 bytes, ending in a newline.
  const size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  XPORT_CHECK(out.good(), InvalidInput, "save_npy: cannot write '", path, "'");
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(c.raw_data()), c.int_numel() * c.element_size());
  XPORT_CHECK(out.good(), InvalidInput, "save_npy: write to '", path, "' failed");
}

}  // namespace xport
