#include "nn/init.h"

#include <atomic>

#include "xport/functions.h"

namespace xport::nn::detail {

uint64_t next_seed() {
  static std::atomic<uint64_t> counter{0x5eed};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

Tensor uniform(const std::vector<int64_t>& shape, double bound) {
  const std::vector<SymInt> sizes(shape.begin(), shape.end());
  return rand(sizes, next_seed()) * (2 * bound) - bound;
}

Tensor normal(const std::vector<int64_t>& shape, double std) {
  const std::vector<SymInt> sizes(shape.begin(), shape.end());
  return randn(sizes, next_seed()) * std;
}

Tensor dropout(const Tensor& x, double p, uint64_t seed) {
  XPORT_CHECK(p >= 0 && p <= 1, InvalidInput, "Dropout: p must be in [0, 1], got ", p);
  if (p == 0) return x;
  if (p == 1) return zeros_like(x);
  const Tensor keep = rand(x.sizes(), seed, x.dtype()).ge(full({}, p, x.dtype()));
  return x * keep.to(x.dtype()) * (1.0 / (1.0 - p));
}

}  // namespace xport::nn::detail
