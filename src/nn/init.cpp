#include "nn/init.h"

#include <atomic>

#include "xport/ops/functions.h"

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


}  // namespace xport::nn::detail
