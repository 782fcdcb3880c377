#include "kernels/cpu/int_mm.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

// Sums in uint32_t: the same bits as int32 two's complement, without signed overflow.
template <class A>
uint32_t dot(const A* a, const int8_t* b, int64_t k) {
  uint32_t sum = 0;
  for (int64_t i = 0; i < k; ++i) sum += static_cast<uint32_t>(int32_t{a[i]} * int32_t{b[i]});
  return sum;
}

// out[m, :] for b^T [N, K] contiguous: N dot products of contiguous rows.
template <class A>
void rows_by_transposed(const A* a, const int8_t* bt, int64_t m_rows, int64_t k, int64_t n,
                        int32_t* out) {
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(k, 1));
  parallel_for(0, m_rows * n, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t row = i / n, col = i % n;
      out[i] = static_cast<int32_t>(dot(a + row * k, bt + col * k, k));
    }
  });
}

// out[m, :] for b [K, N] contiguous: each row of b scaled by a[m, k] and added (vectorizes
// along N).
template <class A>
void rows_by_matrix(const A* a, const int8_t* b, int64_t m_rows, int64_t k, int64_t n,
                    int32_t* out) {
  const int64_t grain = std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(k * n, 1));
  parallel_for(0, m_rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<uint32_t> sums(static_cast<size_t>(n));
    for (int64_t row = begin; row < end; ++row) {
      std::fill(sums.begin(), sums.end(), 0u);
      for (int64_t i = 0; i < k; ++i) {
        const int32_t av = a[row * k + i];
        if (av == 0) continue;
        const int8_t* br = b + i * n;
        for (int64_t j = 0; j < n; ++j) sums[j] += static_cast<uint32_t>(av * int32_t{br[j]});
      }
      for (int64_t j = 0; j < n; ++j) out[row * n + j] = static_cast<int32_t>(sums[j]);
    }
  });
}

}  // namespace

void int_mm_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t m = a.int_size(0), k = a.int_size(1), n = b.int_size(1);
  const Tensor ac = contiguous_as(a, a.dtype());
  const std::vector<int64_t> strides = b.int_strides();
  // A transposed contiguous [N, K] matrix: read in place.
  const bool transposed = k > 1 && n > 1 && strides[0] == 1 && strides[1] == k;
  const Tensor bc = transposed ? b : contiguous_as(b, DType::Int8);
  const int8_t* bd = bc.data<int8_t>();
  write_as<int32_t>(out, [&](int32_t* o) {
    const auto run = [&](const auto* ad) {
      if (transposed) {
        rows_by_transposed(ad, bd, m, k, n, o);
      } else {
        rows_by_matrix(ad, bd, m, k, n, o);
      }
    };
    if (ac.dtype() == DType::UInt8) {
      run(ac.data<uint8_t>());
    } else {
      run(ac.data<int8_t>());
    }
  });
}

}  // namespace xport::kernels::cpu
