// Seeded random factories and from_vector: eager tensors made from data, not ops.
#include <cmath>
#include <random>

#include "kernels/cpu/elementwise.h"
#include "xport/functions.h"

namespace xport {
namespace {

// SplitMix64: a fixed, portable generator, so a seed means the same values everywhere
// (std::normal_distribution is not specified bit-for-bit across standard libraries).
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
};

std::vector<int64_t> concrete(const SymIntList& size, const char* fn) {
  std::vector<int64_t> out;
  for (const SymInt& s : size.vec()) {
    XPORT_CHECK(!s.is_symbolic(), DataDependent, fn, ": needs concrete sizes");
    XPORT_CHECK(s.as_int_unchecked() >= 0, InvalidInput, fn, ": negative size ",
                s.as_int_unchecked());
    out.push_back(s.as_int_unchecked());
  }
  return out;
}

Tensor from_doubles(const std::vector<double>& values, const std::vector<int64_t>& sizes,
                    DType dtype) {
  Tensor src = Tensor::empty_contiguous(sizes, DType::Float64);
  std::copy(values.begin(), values.end(), src.mutable_data<double>());
  if (dtype == DType::Float64) return src;
  Tensor out = Tensor::empty_contiguous(sizes, dtype);
  kernels::cpu::copy_into(out, src);
  return out;
}

int64_t product(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

}  // namespace

Tensor randn(SymIntList size, uint64_t seed, DType dtype) {
  XPORT_CHECK(is_floating(dtype), InvalidInput, "randn: needs a floating dtype, got ",
              dtype_name(dtype));
  const std::vector<int64_t> sizes = concrete(size, "randn");
  SplitMix64 gen{seed};
  std::vector<double> values(product(sizes));
  // Box-Muller, two values per pair of uniforms.
  for (size_t i = 0; i < values.size(); i += 2) {
    const double u1 = 1.0 - gen.uniform();  // (0, 1]
    const double u2 = gen.uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    values[i] = r * std::cos(2.0 * M_PI * u2);
    if (i + 1 < values.size()) values[i + 1] = r * std::sin(2.0 * M_PI * u2);
  }
  return from_doubles(values, sizes, dtype);
}

Tensor rand(SymIntList size, uint64_t seed, DType dtype) {
  XPORT_CHECK(is_floating(dtype), InvalidInput, "rand: needs a floating dtype, got ",
              dtype_name(dtype));
  const std::vector<int64_t> sizes = concrete(size, "rand");
  SplitMix64 gen{seed};
  std::vector<double> values(product(sizes));
  for (double& v : values) v = gen.uniform();
  return from_doubles(values, sizes, dtype);
}

template <class T>
Tensor from_vector(const std::vector<T>& data, SymIntList shape, DType dtype) {
  const std::vector<int64_t> sizes = concrete(shape, "from_vector");
  XPORT_CHECK(product(sizes) == static_cast<int64_t>(data.size()), InvalidInput,
              "from_vector: ", data.size(), " values do not fill a tensor of ", product(sizes),
              " elements");
  Tensor src = Tensor::empty_contiguous(sizes, dtype_v<T>);
  T* dst = src.mutable_data<T>();
  for (size_t i = 0; i < data.size(); ++i) dst[i] = data[i];
  if (dtype == dtype_v<T>) return src;
  Tensor out = Tensor::empty_contiguous(sizes, dtype);
  kernels::cpu::copy_into(out, src);
  return out;
}
template Tensor from_vector(const std::vector<float>&, SymIntList, DType);
template Tensor from_vector(const std::vector<double>&, SymIntList, DType);
template Tensor from_vector(const std::vector<int64_t>&, SymIntList, DType);
template Tensor from_vector(const std::vector<int32_t>&, SymIntList, DType);
template Tensor from_vector(const std::vector<uint8_t>&, SymIntList, DType);
template Tensor from_vector(const std::vector<int8_t>&, SymIntList, DType);
template Tensor from_vector(const std::vector<int16_t>&, SymIntList, DType);

}  // namespace xport
