#include "kernels/cpu/embedding.h"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {


template <class Fn>
void visit_index(DType dtype, const Fn& fn) {
  if (dtype == DType::Int32)
    fn(int32_t{});
  else
    fn(int64_t{});
}

}  // namespace

std::pair<int64_t, int64_t> index_min_max(const Tensor& indices) {
  std::pair<int64_t, int64_t> range{0, 0};
  visit_index(indices.dtype(), [&](auto zero) {
    using I = decltype(zero);
    const Tensor idx = contiguous_as(indices, dtype_v<I>);
    const I* p = idx.data<I>();
    const int64_t n = idx.int_numel();
    if (n == 0) return;
    const auto [lo, hi] = std::minmax_element(p, p + n);
    range = {static_cast<int64_t>(*lo), static_cast<int64_t>(*hi)};
  });
  return range;
}

void embedding_out(const Tensor& weight, const Tensor& indices, const Tensor& out) {
  const Tensor w = contiguous_as(weight, weight.dtype());
  const int64_t row_bytes = w.int_size(1) * w.element_size();
  const auto* src = static_cast<const char*>(w.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  const int64_t n = indices.int_numel();
  visit_index(indices.dtype(), [&](auto zero) {
    using I = decltype(zero);
    const Tensor idx = contiguous_as(indices, dtype_v<I>);
    const I* p = idx.data<I>();
    parallel_for(0, n, std::max<int64_t>(1, 65536 / std::max<int64_t>(row_bytes, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t i = b; i < e; ++i) {
                     std::memcpy(dst + i * row_bytes, src + static_cast<int64_t>(p[i]) * row_bytes,
                                 static_cast<size_t>(row_bytes));
                   }
                 });
  });
}

}  // namespace xport::kernels::cpu
