#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "xport/xport.h"

namespace xport {
namespace {

namespace fs = std::filesystem;

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("xport_npy_" + std::to_string(::getpid()) + "_" + name);
}

TEST(Npy, RoundTripsEveryNumpyDtype) {
  for (DType dtype : {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::Int32,
                      DType::Int64, DType::Float16, DType::Float32, DType::Float64}) {
    const Tensor t = (randn({3, 5}, 1) * 10.0).to(dtype);
    const fs::path path = temp_file(std::string(dtype_name(dtype)) + ".npy");
    save_npy(t.t(), path.string());  // non-contiguous on purpose
    const Tensor back = load_npy(path.string());
    fs::remove(path);
    EXPECT_EQ(back.dtype(), dtype);
    EXPECT_EQ(back.int_sizes(), (std::vector<int64_t>{5, 3}));
    EXPECT_TRUE(allclose(back, t.t(), 0, 0)) << dtype_name(dtype);
  }
}

// complex64 and complex128 ('<c8', '<c16'): their (real, imaginary) pairs travel unchanged.
TEST(Npy, RoundTripsComplex) {
  for (DType part : {DType::Float32, DType::Float64}) {
    const Tensor parts = randn({4, 3, 2}, 2).to(part);
    const Tensor z = call_op("aten::view_as_complex", {parts}).to_tensor();
    const fs::path path = temp_file(std::string(dtype_name(z.dtype())) + ".npy");
    save_npy(z, path.string());
    const Tensor back = load_npy(path.string());
    fs::remove(path);
    EXPECT_EQ(back.dtype(), z.dtype());
    EXPECT_TRUE(allclose(call_op("aten::view_as_real", {back}).to_tensor(), parts, 0, 0));
  }
}

TEST(Npy, ReadsFilesWrittenByNumpyIncludingFortranOrderAndBigEndian) {
  const fs::path f = temp_file("fortran.npy"), b = temp_file("big.npy");
  const std::string cmd = std::string(XPORT_PYTHON) +
                          " -c \"import numpy as np; "
                          "np.save('" +
                          f.string() +
                          "', np.asfortranarray(np.arange(6.0).reshape(2, 3))); "
                          "np.save('" +
                          b.string() + "', np.arange(4, dtype='>i4'))\"";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "numpy is needed: " << XPORT_PYTHON << " (make venv)";
  const Tensor fortran = load_npy(f.string());
  EXPECT_EQ(fortran.int_sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(fortran.to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  const Tensor big = load_npy(b.string());
  EXPECT_EQ(big.dtype(), DType::Int32);
  EXPECT_EQ(big.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3}));
  fs::remove(f);
  fs::remove(b);
}

TEST(Npy, MalformedFilesGiveClearErrors) {
  const fs::path p = temp_file("bad.npy");
  std::ofstream(p) << "not numpy";
  try {
    load_npy(p.string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("bad magic"), std::string::npos);
  }
  // A truncated data section.
  save_npy(zeros({100}), p.string());
  fs::resize_file(p, fs::file_size(p) - 10);
  EXPECT_THROW(load_npy(p.string()), Error);
  fs::remove(p);
  EXPECT_THROW(save_npy(zeros({2}, DType::BFloat16), p.string()), Error);
}

// A version 1.0 file with `header` as its dict (padded as NumPy pads it) and `data` after it.
void write_npy(const fs::path& p, std::string header, const std::string& data = "") {
  header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::ofstream out(p, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff),
                       static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header << data;
}

std::string load_error(const fs::path& p) {
  try {
    load_npy(p.string());
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    return e.what();
  }
  return "(loaded)";
}

// Found by fuzz/tensor_file_fuzzer: a header cut short threw std::out_of_range, and a shape of
// 2^62 elements was allocated before the data was looked for.
TEST(Npy, RefusesHeadersAndShapesTheFileCannotHold) {
  const fs::path p = temp_file("hostile.npy");
  write_npy(p, "{'descr': '|u1', 'fortran_order': True, 'shape': (5");
  EXPECT_NE(load_error(p).find("malformed header"), std::string::npos) << load_error(p);
  write_npy(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }",
            std::string(16, '\0'));
  EXPECT_NE(load_error(p).find("needs more data than the file's 16 bytes"), std::string::npos)
      << load_error(p);
  write_npy(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }");
  EXPECT_NE(load_error(p).find("non-negative"), std::string::npos) << load_error(p);
  write_npy(p, "{'descr': '<f4x', 'fortran_order': False, 'shape': (1,), }", "abcd");
  EXPECT_NE(load_error(p).find("dtype '<f4x'"), std::string::npos) << load_error(p);
  write_npy(p, "{'descr': '<f4', 'shape': (1,), }", "abcd");
  EXPECT_NE(load_error(p).find("lacks 'fortran_order'"), std::string::npos) << load_error(p);
  write_npy(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "abcd");
  EXPECT_NE(load_error(p).find("unexpected or repeated key 'x'"), std::string::npos);
  // No data at all for a shape with a 0 in it, whatever its other sizes.
  write_npy(p, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 0), }");
  EXPECT_EQ(load_npy(p.string()).int_sizes(), (std::vector<int64_t>{4611686018427387904, 0}));
  // ... but not sizes whose contiguous strides overflow int64 (found by the fuzzer too), in C
  // order or Fortran order.
  for (const char* order : {"False", "True"}) {
    write_npy(p, std::string("{'descr': '<f8', 'fortran_order': ") + order +
                     ", 'shape': (0, 4294967296, 4294967296, 4), }");
    EXPECT_NE(load_error(p).find("the header's shape overflows int64 strides"), std::string::npos)
        << order << ": " << load_error(p);
  }
  // What NumPy writes still loads: spaces, a trailing comma, a 1-tuple, keys in any order.
  write_npy(p, "{'shape': (2,), 'fortran_order': False, 'descr': '<i2'}",
            std::string("\1\0\2\0", 4));
  EXPECT_EQ(load_npy(p.string()).to_vector<int16_t>(), (std::vector<int16_t>{1, 2}));
  fs::remove(p);
}

}  // namespace
}  // namespace xport
