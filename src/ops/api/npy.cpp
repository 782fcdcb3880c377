#include "xport/ops/npy.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "tensor/checked_strides.h"

namespace xport {
namespace {

struct NpyType {
  char kind;  // b, u, i, f, c
  int size;
  DType dtype;
};
constexpr NpyType kTypes[] = {
    {'b', 1, DType::Bool},      {'u', 1, DType::UInt8},       {'i', 1, DType::Int8},
    {'i', 2, DType::Int16},     {'i', 4, DType::Int32},       {'i', 8, DType::Int64},
    {'f', 2, DType::Float16},   {'f', 4, DType::Float32},     {'f', 8, DType::Float64},
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

// The header: a Python dict literal of 'descr' (a dtype string), 'fortran_order' (True or
// False) and 'shape' (a tuple of sizes), in any order, as NumPy writes it. Anything else is
// refused: the file is a user's input.
struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& path) : text_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader h;
    bool descr = false, fortran = false, shape = false;
    expect('{');
    while (!eat('}')) {
      const std::string key = quoted();
      expect(':');
      if (key == "descr" && !descr) {
        h.descr = quoted();
        descr = true;
      } else if (key == "fortran_order" && !fortran) {
        h.fortran = boolean();
        fortran = true;
      } else if (key == "shape" && !shape) {
        h.shape = sizes();
        shape = true;
      } else {
        fail("unexpected or repeated key '" + key + "'");
      }
      if (!eat(',')) {
        expect('}');
        break;
      }
    }
    skip_spaces();
    XPORT_CHECK(pos_ == text_.size(), InvalidInput, "load_npy(", path_,
                "): malformed header: text after its dict");
    XPORT_CHECK(descr && fortran && shape, InvalidInput, "load_npy(", path_, "): the header lacks ",
                !descr     ? "'descr'"
                : !fortran ? "'fortran_order'"
                           : "'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    XPORT_FAIL(InvalidInput, "load_npy(", path_, "): malformed header at byte ", pos_, ": ", what);
  }
  void skip_spaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
  }
  bool eat(char c) {
    skip_spaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  std::string quoted() {
    skip_spaces();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      fail("expected a quoted string");
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string::npos) fail("unterminated string");
    std::string value = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return value;
  }
  bool boolean() {
    skip_spaces();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const size_t n = std::strlen(word);
      if (text_.compare(pos_, n, word) == 0) {
        pos_ += n;
        return value;
      }
    }
    fail("expected True or False");
  }
  std::vector<int64_t> sizes() {
    std::vector<int64_t> out;
    expect('(');
    while (!eat(')')) {
      skip_spaces();
      int64_t v = 0;
      const char* first = text_.data() + pos_;
      const auto [end, error] = std::from_chars(first, text_.data() + text_.size(), v);
      if (error != std::errc() || v < 0) fail("a size must be a non-negative 64-bit integer");
      pos_ += static_cast<size_t>(end - first);
      out.push_back(v);
      if (!eat(',')) {
        expect(')');
        break;
      }
    }
    return out;
  }

  const std::string& text_;
  const std::string& path_;
  size_t pos_ = 0;
};

// The type a descr such as '<f4' names, and whether its bytes are big-endian.
std::pair<const NpyType*, bool> parse_descr(const std::string& descr, const std::string& path) {
  int size = 0;
  const bool shaped = descr.size() >= 3 && std::strchr("<>|=", descr[0]) != nullptr;
  const auto [end, error] =
      shaped ? std::from_chars(descr.data() + 2, descr.data() + descr.size(), size)
             : std::from_chars_result{nullptr, std::errc::invalid_argument};
  const NpyType* type = nullptr;
  if (error == std::errc() && end == descr.data() + descr.size()) {
    for (const NpyType& t : kTypes) {
      if (t.kind == descr[1] && t.size == size) type = &t;
    }
  }
  XPORT_CHECK(type != nullptr, InvalidInput, "load_npy(", path, "): dtype '", descr,
              "' has no xport equivalent (supported: bool, uint8, int8-64, float16-64, "
              "complex64, complex128)");
  return {type, descr[0] == '>'};
}

}  // namespace

Tensor load_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  XPORT_CHECK(in.good(), InvalidInput, "load_npy: cannot open '", path, "'");
  const auto file_bytes = static_cast<int64_t>(in.tellg());
  in.seekg(0);
  char magic[8];
  in.read(magic, 8);
  XPORT_CHECK(in.gcount() == 8 && std::memcmp(magic, "\x93NUMPY", 6) == 0, InvalidInput,
              "load_npy(", path, "): not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  XPORT_CHECK(major >= 1 && major <= 3, InvalidInput, "load_npy(", path,
              "): unsupported format version ", major);
  unsigned char b[4] = {0, 0, 0, 0};
  in.read(reinterpret_cast<char*>(b), major == 1 ? 2 : 4);
  const uint32_t header_len =
      b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  XPORT_CHECK(in.good() && header_len < (1u << 20), InvalidInput, "load_npy(", path,
              "): bad header length");
  std::string text(header_len, '\0');
  in.read(text.data(), header_len);
  XPORT_CHECK(in.gcount() == static_cast<std::streamsize>(header_len), InvalidInput, "load_npy(",
              path, "): file ends inside the header");
  const NpyHeader header = HeaderParser(text, path).parse();
  const auto [type, big_endian] = parse_descr(header.descr, path);
  const int size = type->size;

  // The data must be in the file before anything is allocated for it (a size of 0 needs none,
  // whatever the other sizes).
  const int64_t data_bytes = file_bytes - static_cast<int64_t>(in.tellg());
  const bool empty = std::find(header.shape.begin(), header.shape.end(), 0) != header.shape.end();
  int64_t nbytes = empty ? 0 : size;
  for (size_t i = 0; !empty && i < header.shape.size(); ++i) {
    XPORT_CHECK(nbytes <= data_bytes / header.shape[i], InvalidInput, "load_npy(", path,
                "): the header's shape needs more data than the file's ", data_bytes, " bytes");
    nbytes *= header.shape[i];
  }
  XPORT_CHECK(nbytes <= data_bytes, InvalidInput, "load_npy(", path, "): data is ", data_bytes,
              " bytes, the header says ", nbytes);
  // Fortran order is C order of the reversed shape, transposed back.
  std::vector<int64_t> storage_shape = header.shape;
  if (header.fortran) std::reverse(storage_shape.begin(), storage_shape.end());
  XPORT_CHECK(!contiguous_strides_overflow(header.shape) &&
                  !contiguous_strides_overflow(storage_shape),
              InvalidInput, "load_npy(", path, "): the header's shape overflows int64 strides");
  Tensor t = Tensor::empty_contiguous(storage_shape, type->dtype);
  in.read(static_cast<char*>(t.raw_data()), nbytes);
  XPORT_CHECK(in.gcount() == nbytes, InvalidInput, "load_npy(", path, "): data is ", in.gcount(),
              " bytes, the header says ", nbytes);
  if (big_endian && size > 1) {
    // A complex number swaps its two parts' bytes each.
    const int part = type->kind == 'c' ? size / 2 : size;
    char* p = static_cast<char*>(t.raw_data());
    for (int64_t i = 0; i < nbytes; i += part) std::reverse(p + i, p + i + part);
  }
  if (type->dtype == DType::Bool) {
    uint8_t* p = static_cast<uint8_t*>(t.raw_data());
    for (int64_t i = 0; i < nbytes; ++i) p[i] = p[i] != 0;  // only 0/1 are valid bools
  }
  if (header.fortran && header.shape.size() > 1) {
    std::vector<int64_t> dims(header.shape.size());
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
