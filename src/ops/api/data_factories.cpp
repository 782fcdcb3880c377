// Seeded random factories and from_vector: eager tensors made from data, not ops.

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/random.h"
#include "xport/ops/functions.h"

namespace xport {
namespace {

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

// The kernels' generator keyed by the seed: a fixed, portable SplitMix64 (std::normal_distribution
// is not bit-for-bit the same across standard libraries), counter-based so chunks fill in
// parallel.
Tensor randn(SymIntList size, uint64_t seed, DType dtype) {
  XPORT_CHECK(is_floating(dtype), InvalidInput, "randn: needs a floating dtype, got ",
              dtype_name(dtype));
  Tensor out = Tensor::empty_contiguous(concrete(size, "randn"), dtype);
  kernels::cpu::normal_fill(out, seed);
  return out;
}

Tensor rand(SymIntList size, uint64_t seed, DType dtype) {
  XPORT_CHECK(is_floating(dtype), InvalidInput, "rand: needs a floating dtype, got ",
              dtype_name(dtype));
  Tensor out = Tensor::empty_contiguous(concrete(size, "rand"), dtype);
  kernels::cpu::uniform_fill(out, seed);
  return out;
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
