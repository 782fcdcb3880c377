#include "xport/nn/safetensors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "xport/nn/layers.h"
#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("xport_st_" + std::to_string(::getpid()) + "_" + name);
}

// The bytes of `t` in row-major order, for exact (bitwise) comparison.
std::vector<char> bytes_of(const Tensor& t) {
  const Tensor c = t.contiguous();
  const char* p = static_cast<const char*>(c.raw_data());
  return std::vector<char>(p, p + c.int_numel() * c.element_size());
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}

// A file as another writer might make it: the header exactly as given (no padding) and `data`.
std::string safetensors_bytes(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}

template <class T>
std::string raw(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

const Tensor& tensor_named(const nn::NamedTensors& tensors, const std::string& name) {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  throw std::runtime_error("no tensor named " + name);
}

std::vector<std::string> names_of(const nn::NamedTensors& tensors) {
  std::vector<std::string> names;
  for (const auto& [n, t] : tensors) names.push_back(n);
  return names;
}

TEST(Safetensors, RoundTripsEveryDtypeExactly) {
  nn::NamedTensors tensors;
  for (DType dtype :
       {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64,
        DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    tensors.emplace_back(dtype_name(dtype), (randn({3, 5}, 7) * 10.0).to(dtype));
  }
  tensors.emplace_back("empty", zeros({0, 3}));
  tensors.emplace_back("scalar", randn(std::vector<int64_t>{}, 3, DType::Float64));
  tensors.emplace_back("transposed", randn({4, 6}, 5).t());  // non-contiguous on purpose
  const fs::path path = temp_file("dtypes.safetensors");
  write_safetensors(path.string(), tensors);
  const SafetensorsContents back = read_safetensors(path.string());
  fs::remove(path);

  ASSERT_EQ(names_of(back.tensors), names_of(tensors));  // file order is the given order
  for (const auto& [name, t] : tensors) {
    SCOPED_TRACE(name);
    const Tensor& b = tensor_named(back.tensors, name);
    EXPECT_EQ(b.dtype(), t.dtype());
    EXPECT_EQ(b.int_sizes(), t.int_sizes());
    EXPECT_TRUE(b.is_contiguous());
    EXPECT_EQ(bytes_of(b), bytes_of(t));
  }
  EXPECT_TRUE(back.metadata.empty());
}

TEST(Safetensors, RoundTripsMetadata) {
  const std::map<std::string, std::string> metadata = {
      {"format", "pt"}, {"note", "héllo \"quoted\"\n"}, {"empty", ""}};
  const fs::path path = temp_file("meta.safetensors");
  write_safetensors(path.string(), {{"x", arange(6).view({2, 3})}}, metadata);
  const SafetensorsContents back = read_safetensors(path.string());
  fs::remove(path);
  EXPECT_EQ(back.metadata, metadata);
  ASSERT_EQ(back.tensors.size(), 1u);
  EXPECT_EQ(back.tensors[0].second.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Safetensors, WritesACompactHeaderPaddedWithSpacesToEightBytes) {
  const fs::path path = temp_file("layout.safetensors");
  write_safetensors(path.string(), {{"b", from_vector<int32_t>({1, 2, 3}, {3})},
                                    {"a", from_vector<uint8_t>({9}, {1})}});
  const std::string bytes = read_bytes(path);
  fs::remove(path);
  ASSERT_GE(bytes.size(), 8u);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  ASSERT_EQ(bytes.size(), 8 + n + 13);
  const std::string header = bytes.substr(8, n);
  EXPECT_EQ(header.find('\n'), std::string::npos);
  EXPECT_EQ(header.find_last_not_of(' '), header.find_last_of('}'));
  // Data in the given order: b's 12 bytes, then a's one.
  EXPECT_EQ(bytes.substr(8 + n), raw<int32_t>({1, 2, 3}) + "\x09");
  EXPECT_NE(header.find("\"b\":{\"dtype\":\"I32\",\"shape\":[3],\"data_offsets\":[0,12]}"),
            std::string::npos)
      << header;
}

TEST(Safetensors, ReadsAnUnpaddedFileWhoseDataIsMisaligned) {
  // As another writer might lay it out: no padding, so data starts at an odd offset, and
  // tensors in a different order than the header lists them.
  std::string header = R"({"f16":{"dtype":"F16","shape":[2],"data_offsets":[27,31]},)"
                       R"("u8":{"dtype":"U8","shape":[3],"data_offsets":[24,27]},)"
                       R"("f32":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("i64":{"dtype":"I64","shape":[2,1],"data_offsets":[8,24]},)"
                       R"("__metadata__":{"source":"hand"}})";
  if (header.size() % 2 == 0) header += ' ';
  const std::string data = raw<float>({1.5f, -2.25f}) + raw<int64_t>({-7, 1LL << 40}) +
                           raw<uint8_t>({0, 128, 255}) +
                           raw<uint16_t>({Half(0.5f).bits, Half(-3.0f).bits});
  const fs::path path = temp_file("unpadded.safetensors");
  write_bytes(path, safetensors_bytes(header, data));
  const SafetensorsContents back = read_safetensors(path.string());
  fs::remove(path);

  EXPECT_EQ(names_of(back.tensors), (std::vector<std::string>{"f32", "i64", "u8", "f16"}));
  EXPECT_EQ(back.metadata, (std::map<std::string, std::string>{{"source", "hand"}}));
  EXPECT_EQ(tensor_named(back.tensors, "f32").to_vector<float>(),
            (std::vector<float>{1.5f, -2.25f}));
  const Tensor& i64 = tensor_named(back.tensors, "i64");
  EXPECT_EQ(i64.int_sizes(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(i64.to_vector<int64_t>(), (std::vector<int64_t>{-7, 1LL << 40}));
  EXPECT_EQ(tensor_named(back.tensors, "u8").to_vector<int32_t>(),
            (std::vector<int32_t>{0, 128, 255}));
  EXPECT_EQ(tensor_named(back.tensors, "f16").to_vector<float>(),
            (std::vector<float>{0.5f, -3.0f}));
  for (const auto& [name, t] : back.tensors) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % t.element_size(), 0u) << name;
  }
  // Arithmetic on the (copied or mapped) tensors works.
  EXPECT_EQ(tensor_named(back.tensors, "f16").to(DType::Float32).sum().item<float>(), -2.5f);
}

TEST(Safetensors, LoadedTensorsAreCopyOnWriteAndOutliveTheFile) {
  const fs::path path = temp_file("cow.safetensors");
  write_safetensors(path.string(), {{"w", arange(8, DType::Float32)}});
  Tensor w = read_safetensors(path.string()).tensors.at(0).second;
  w.mul_(2.0);
  EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{0, 2, 4, 6, 8, 10, 12, 14}));
  // The file is unchanged by the write.
  EXPECT_EQ(read_safetensors(path.string()).tensors.at(0).second.to_vector<float>(),
            (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  fs::remove(path);
  EXPECT_EQ(w.add(1.0).to_vector<float>(), (std::vector<float>{1, 3, 5, 7, 9, 11, 13, 15}));
}

TEST(Safetensors, ReadsAFileWrittenFromPyTorch) {
  const fs::path path = temp_file("torch.safetensors");
  const fs::path values = temp_file("torch_values.json");
  // Lays the file out as Hugging Face's writer does: data sorted by dtype size (largest
  // first) then name, header padded with spaces to 8 bytes.
  const std::string script = R"PY(
import json, struct, sys, torch
torch.manual_seed(0)
tensors = {
    "weight": torch.randn(2, 3),
    "index": torch.arange(-3, 3, dtype=torch.int64).reshape(3, 2),
    "half": torch.randn(5).half(),
}
order = sorted(tensors, key=lambda k: (-tensors[k].element_size(), k))
dt = {torch.float32: "F32", torch.int64: "I64", torch.float16: "F16"}
header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
for k in order:
    b = tensors[k].contiguous().numpy().tobytes()
    header[k] = {"dtype": dt[tensors[k].dtype], "shape": list(tensors[k].shape),
                 "data_offsets": [offset, offset + len(b)]}
    blobs.append(b)
    offset += len(b)
h = json.dumps(header, separators=(",", ":")).encode()
h += b" " * ((8 - len(h) % 8) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
with open(sys.argv[2], "w") as f:
    json.dump({k: [float(x) for x in t.flatten().tolist()] for k, t in tensors.items()}, f)
)PY";
  const fs::path script_path = temp_file("write.py");
  write_bytes(script_path, script);
  const std::string cmd = std::string(XPORT_PYTHON) + " " + script_path.string() +
                          " " + path.string() + " " + values.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "PyTorch is needed: " << XPORT_PYTHON << " (make venv)";
  const SafetensorsContents back = read_safetensors(path.string());
  const std::string expected = read_bytes(values);
  fs::remove(script_path);
  fs::remove(path);
  fs::remove(values);

  EXPECT_EQ(names_of(back.tensors), (std::vector<std::string>{"index", "weight", "half"}));
  EXPECT_EQ(back.metadata.at("format"), "pt");
  EXPECT_EQ(tensor_named(back.tensors, "weight").dtype(), DType::Float32);
  EXPECT_EQ(tensor_named(back.tensors, "weight").int_sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensor_named(back.tensors, "index").dtype(), DType::Int64);
  EXPECT_EQ(tensor_named(back.tensors, "index").to_vector<int64_t>(),
            (std::vector<int64_t>{-3, -2, -1, 0, 1, 2}));
  EXPECT_EQ(tensor_named(back.tensors, "half").dtype(), DType::Float16);
  // Python's repr of a double round-trips, and float32/float16 values are exact doubles.
  for (const std::string name : {"weight", "half"}) {
    const size_t at = expected.find("\"" + name + "\": [");
    ASSERT_NE(at, std::string::npos) << expected;
    std::istringstream list(expected.substr(at + name.size() + 5));
    std::vector<double> want;
    for (double v; list >> v;) {
      want.push_back(v);
      char sep;
      if (!(list >> sep) || sep != ',') break;
    }
    EXPECT_EQ(tensor_named(back.tensors, name).to_vector<double>(), want) << name;
  }
}

struct Malformed {
  std::string what;
  std::string bytes;
  std::string message;  // a substring the error must contain
};

TEST(Safetensors, MalformedFilesGiveInvalidArchiveErrorsNamingTheProblem) {
  const std::string f32x2 = R"("dtype":"F32","shape":[2])";
  const std::string eight(8, '\0');
  const std::vector<Malformed> cases = {
      {"empty file", "", "shorter than the 8-byte header length"},
      {"truncated", std::string("\x05\0\0\0", 4), "shorter than the 8-byte header length"},
      {"header longer than the file", le64(1000) + "{}", "larger than the file"},
      {"absurd header length", le64(1ULL << 62) + "{}", "absurd"},
      {"invalid JSON", safetensors_bytes(R"({"a": {"dtype": )", ""), "not valid JSON"},
      {"invalid UTF-8", safetensors_bytes("{\"\xff\": 1}", ""), "not valid JSON"},
      {"header not an object", safetensors_bytes("[1, 2]", ""), "expected an object of tensors"},
      {"entry not an object", safetensors_bytes(R"({"a": 3})", ""),
       "tensor 'a': entry is a JSON number"},
      {"missing data_offsets", safetensors_bytes("{\"a\":{" + f32x2 + "}}", eight),
       "tensor 'a': missing \"data_offsets\""},
      {"missing dtype", safetensors_bytes(R"({"a":{"shape":[2],"data_offsets":[0,8]}})", eight),
       "tensor 'a': missing \"dtype\""},
      {"shape not an array",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":"2","data_offsets":[0,8]}})", eight),
       "tensor 'a': \"shape\" is a JSON string"},
      {"fractional dim",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,8]}})", eight),
       "expected non-negative integers"},
      {"unknown dtype",
       safetensors_bytes(R"({"fp8":{"dtype":"F8_E4M3","shape":[8],"data_offsets":[0,8]}})", eight),
       "tensor 'fp8': unknown or unsupported dtype \"F8_E4M3\""},
      {"offsets out of range",
       safetensors_bytes("{\"a\":{" + f32x2 + R"(,"data_offsets":[0,16]}})", eight),
       "tensor 'a': data_offsets [0,16] out of range"},
      {"offsets reversed",
       safetensors_bytes("{\"a\":{" + f32x2 + R"(,"data_offsets":[8,0]}})", eight), "begin <= end"},
      {"offsets not a pair",
       safetensors_bytes("{\"a\":{" + f32x2 + R"(,"data_offsets":[0]}})", eight),
       "expected [begin, end]"},
      {"byte count mismatch",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight),
       "tensor 'a': dtype/shape mismatch"},
      {"negative dim",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight),
       "tensor 'a': negative dim -2"},
      {"shape overflow",
       safetensors_bytes(
           R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}})",
           eight),
       "overflows"},
      // Found by fuzz/tensor_file_fuzzer: no elements (a 0 dim), but strides past int64.
      {"stride overflow",
       safetensors_bytes(
           R"({"a":{"dtype":"F32","shape":[0,4294967296,4294967296,4],"data_offsets":[0,0]}})",
           ""),
       "tensor 'a': shape [0,4294967296,4294967296,4] overflows int64 strides"},
      {"overlapping ranges",
       safetensors_bytes("{\"a\":{" + f32x2 + R"(,"data_offsets":[0,8]},"b":{)" + f32x2 +
                             R"(,"data_offsets":[4,12]}})",
                         eight + eight),
       "overlapping tensors: 'a'"},
      {"non-string metadata",
       safetensors_bytes(R"({"__metadata__":{"epochs":3},"a":{"dtype":"U8","shape":[0],)"
                         R"("data_offsets":[0,0]}})",
                         ""),
       "\"__metadata__\" entry 'epochs' is 3"},
  };
  const fs::path path = temp_file("bad.safetensors");
  for (const Malformed& c : cases) {
    SCOPED_TRACE(c.what);
    write_bytes(path, c.bytes);
    try {
      read_safetensors(path.string());
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArchive);
      const std::string message = e.what();
      EXPECT_EQ(message.rfind("read_safetensors(" + path.string() + "): ", 0), 0u) << message;
      EXPECT_NE(message.find(c.message), std::string::npos) << message;
    }
  }
  fs::remove(path);
}

TEST(Safetensors, RandomlyCorruptedFilesThrowErrorsOrReadButNeverCrash) {
  const fs::path path = temp_file("fuzz.safetensors");
  write_safetensors(path.string(),
                    {{"a", randn({2, 3}, 1)}, {"b", arange(5)}, {"c", ones({3}, DType::Bool)}},
                    {{"k", "v"}});
  const std::string good = read_bytes(path);
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes = good;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % bytes.size();
      bytes[at] = rng() % 2 ? static_cast<char>(rng()) : "0123456789[]{},:-\"e"[rng() % 19];
    }
    if (rng() % 8 == 0) bytes.resize(rng() % bytes.size());
    write_bytes(path, bytes);
    try {
      for (const auto& [name, t] : read_safetensors(path.string()).tensors) (void)bytes_of(t);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::InvalidArchive) << e.what();
    }
  }
  fs::remove(path);
}

TEST(Safetensors, EmptyRangesAndTrailingBytesAreAccepted) {
  // Zero-byte tensors may share an offset with anything; bytes after the last tensor are unused.
  const std::string header = R"({"e1":{"dtype":"F32","shape":[0,4],"data_offsets":[4,4]},)"
                             R"("a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},)"
                             R"("e2":{"dtype":"BOOL","shape":[0],"data_offsets":[8,8]}})";
  const fs::path path = temp_file("empty_ranges.safetensors");
  write_bytes(path, safetensors_bytes(header, raw<int32_t>({5, 6}) + "junk"));
  const SafetensorsContents back = read_safetensors(path.string());
  fs::remove(path);
  ASSERT_EQ(back.tensors.size(), 3u);
  EXPECT_EQ(tensor_named(back.tensors, "a").to_vector<int32_t>(), (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(tensor_named(back.tensors, "e1").int_sizes(), (std::vector<int64_t>{0, 4}));
}

TEST(Safetensors, ReadsAnyNonzeroBoolByteAsTrue) {
  const fs::path path = temp_file("bool.safetensors");
  write_bytes(path, safetensors_bytes(R"({"m":{"dtype":"BOOL","shape":[4],"data_offsets":[0,4]}})",
                                      std::string("\0\x01\x02\xff", 4)));
  const Tensor m = read_safetensors(path.string()).tensors.at(0).second;
  fs::remove(path);
  EXPECT_EQ(bytes_of(m), (std::vector<char>{0, 1, 1, 1}));
  EXPECT_EQ(m.to(DType::Int32).sum().item<int64_t>(), 3);
}

TEST(Safetensors, ReadingAMissingFileIsInvalidInput) {
  try {
    read_safetensors(temp_file("missing.safetensors").string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

ErrorKind write_error_kind(const std::string& path, const nn::NamedTensors& tensors,
                           const std::string& message) {
  try {
    write_safetensors(path, tensors);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return ErrorKind::Internal;
}

TEST(Safetensors, WriteRefusesDuplicateUndefinedAndFakeTensors) {
  const fs::path path = temp_file("refused.safetensors");
  EXPECT_EQ(write_error_kind(path.string(), {{"a", zeros({2})}, {"a", zeros({3})}},
                             "duplicate tensor name 'a'"),
            ErrorKind::InvalidInput);
  EXPECT_EQ(write_error_kind(path.string(), {{"a", Tensor()}}, "tensor 'a' is undefined"),
            ErrorKind::InvalidInput);
  auto fake = std::make_shared<TensorImpl>();
  fake->meta.sizes = {2};
  fake->meta.strides = {1};
  EXPECT_EQ(write_error_kind(path.string(), {{"f", Tensor(fake)}}, "fake tensor"),
            ErrorKind::InvalidInput);
  EXPECT_EQ(write_error_kind(path.string(), {{"__metadata__", zeros({1})}}, "reserved"),
            ErrorKind::InvalidInput);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
}

TEST(Safetensors, WriteIntoAMissingDirectoryIsInvalidInput) {
  const fs::path path = temp_file("no_such_dir") / "x.safetensors";
  EXPECT_EQ(write_error_kind(path.string(), {{"a", zeros({2})}}, "No such file or directory"),
            ErrorKind::InvalidInput);
}

TEST(Safetensors, OverwritingAFileLeavesNoTemporary) {
  const fs::path path = temp_file("overwrite.safetensors");
  write_safetensors(path.string(), {{"a", zeros({100})}});
  write_safetensors(path.string(), {{"b", ones({2})}});
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  EXPECT_EQ(names_of(read_safetensors(path.string()).tensors), (std::vector<std::string>{"b"}));
  fs::remove(path);
}

TEST(Safetensors, SavesAndLoadsALinearModule) {
  nn::Linear source(4, 3);
  const fs::path path = temp_file("linear.safetensors");
  save_safetensors(source, path.string());
  const SafetensorsContents file = read_safetensors(path.string());
  EXPECT_EQ(names_of(file.tensors), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(file.metadata.at("format"), "pt");

  nn::Linear target(4, 3);
  target.weight.zero_();
  target.bias.zero_();
  load_safetensors(target, path.string());
  fs::remove(path);
  EXPECT_EQ(bytes_of(target.weight), bytes_of(source.weight));
  EXPECT_EQ(bytes_of(target.bias), bytes_of(source.bias));

  nn::Linear wrong(4, 5);
  write_safetensors(path.string(), {{"weight", zeros({3, 4})}, {"bias", zeros({3})}});
  EXPECT_THROW(load_safetensors(wrong, path.string()), Error);  // strict: shapes must match
  fs::remove(path);
}

// Two submodules sharing one weight, like a language model's tied embedding and head.
std::unique_ptr<nn::Module> tied_module(const Tensor& weight) {
  auto root = std::make_unique<nn::Module>("Tied");
  auto embed = std::make_shared<nn::Module>("Embedding");
  auto head = std::make_shared<nn::Module>("Linear");
  embed->register_parameter("weight", weight);
  head->register_parameter("weight", weight);
  root->register_module("embed", embed);
  root->register_module("head", head);
  root->register_buffer("scale", full({1}, 2.0));
  return root;
}

TEST(Safetensors, StoresATiedParameterOnceUnderItsFirstName) {
  const Tensor weight = randn({3, 2}, 11);
  const auto source = tied_module(weight);
  ASSERT_EQ(source->state_dict().size(), 3u);
  const fs::path path = temp_file("tied.safetensors");
  save_safetensors(*source, path.string());
  std::vector<std::string> stored = names_of(read_safetensors(path.string()).tensors);
  std::sort(stored.begin(), stored.end());
  EXPECT_EQ(stored, (std::vector<std::string>{"embed.weight", "scale"}));

  const Tensor fresh = zeros({3, 2});
  const auto target = tied_module(fresh);
  load_safetensors(*target, path.string());
  fs::remove(path);
  EXPECT_EQ(bytes_of(fresh), bytes_of(weight));
}

}  // namespace
}  // namespace xport
