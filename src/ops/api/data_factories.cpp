// Seeded random factories and from_vector: eager tensors made from data, not ops.
#include <cmath>
#include <random>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/random.h"
#include "xport/functions.h"

namespace xport {
namespace {

// SplitMix64: a fixed, portable generator, so a seed means the same values everywhere
// (std::normal_distribution is not specified bit-for-bit across standard libraries). It is
// counter-based: draw i of a seed is a function of (seed, i), so chunks fill in parallel.
double uniform01(uint64_t seed, uint64_t i) {  // [0, 1)
  return static_cast<double>(kernels::cpu::mix64(seed + (i + 1) * 0x9e3779b97f4a7c15ull) >> 11) *
         0x1.0p-53;
}

// Fills a float32 or float64 tensor of n elements in parallel: fill(data, i, n) writes the
// elements of unit i (a chunk of `unit` consecutive elements); other dtypes convert from float64.
template <class Fill>
Tensor generate(const std::vector<int64_t>& sizes, DType dtype, int64_t n, int64_t unit,
                const Fill& fill) {
  const DType work = dtype == DType::Float32 ? DType::Float32 : DType::Float64;
  Tensor out = Tensor::empty_contiguous(sizes, work);
  auto run = [&](auto* data) {
    kernels::cpu::parallel_for(0, (n + unit - 1) / unit, 1 << 13, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) fill(data, i, n);
    });
  };
  if (work == DType::Float32) {
    run(out.mutable_data<float>());
  } else {
    run(out.mutable_data<double>());
  }
  if (dtype == work) return out;
  Tensor converted = Tensor::empty_contiguous(sizes, dtype);
  kernels::cpu::copy_into(converted, out);
  return converted;
}

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
  // Box-Muller: pair j turns draws 2j and 2j + 1 into elements 2j and 2j + 1.
  return generate(sizes, dtype, product(sizes), 2, [seed](auto* data, int64_t j, int64_t n) {
    using T = std::remove_pointer_t<decltype(data)>;
    const uint64_t i = 2 * static_cast<uint64_t>(j);
    const double u1 = 1.0 - uniform01(seed, i);  // (0, 1]
    const double u2 = uniform01(seed, i + 1);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * M_PI * u2;
    data[i] = static_cast<T>(r * std::cos(angle));
    if (static_cast<int64_t>(i) + 1 < n) data[i + 1] = static_cast<T>(r * std::sin(angle));
  });
}

Tensor rand(SymIntList size, uint64_t seed, DType dtype) {
  XPORT_CHECK(is_floating(dtype), InvalidInput, "rand: needs a floating dtype, got ",
              dtype_name(dtype));
  const std::vector<int64_t> sizes = concrete(size, "rand");
  return generate(sizes, dtype, product(sizes), 1, [seed](auto* data, int64_t i, int64_t) {
    data[i] = static_cast<std::remove_pointer_t<decltype(data)>>(uniform01(seed, i));
  });
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
