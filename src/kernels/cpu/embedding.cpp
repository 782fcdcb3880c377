#include "kernels/cpu/embedding.h"

#include <algorithm>
#include <cstring>
#include <vector>

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

void embedding_dense_backward_out(const Tensor& grad_output, const Tensor& indices,
                                  int64_t padding_idx, bool scale_grad_by_freq, const Tensor& out) {
  const int64_t rows = out.int_size(0), dim = out.int_size(1);
  const int64_t n = indices.int_numel();
  std::vector<int64_t> index(static_cast<size_t>(n)), counts(static_cast<size_t>(rows), 0);
  visit_index(indices.dtype(), [&](auto zero) {
    using I = decltype(zero);
    const Tensor idx = contiguous_as(indices, dtype_v<I>);
    std::copy(idx.data<I>(), idx.data<I>() + n, index.begin());
  });
  for (int64_t i : index) counts[static_cast<size_t>(i)]++;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor grad = contiguous_as(grad_output, dtype_v<T>);
    const T* g = grad.data<T>();
    write_as<T>(out, [&](T* w) {
      std::fill(w, w + rows * dim, T(0));
      // Index order, as ATen sums: each weight row in one pass over the indices.
      for (int64_t k = 0; k < n; ++k) {
        const int64_t row = index[static_cast<size_t>(k)];
        if (row == padding_idx) continue;
        const T scale = scale_grad_by_freq ? T(1) / static_cast<T>(counts[row]) : T(1);
        for (int64_t d = 0; d < dim; ++d) w[row * dim + d] += g[k * dim + d] * scale;
      }
    });
  };
  visit_floating(out.dtype(), run);
}

}  // namespace xport::kernels::cpu
