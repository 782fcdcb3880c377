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

namespace {

std::vector<int64_t> int64_values(const Tensor& t) {
  std::vector<int64_t> values(static_cast<size_t>(t.int_numel()));
  visit_index(t.dtype(), [&](auto zero) {
    using I = decltype(zero);
    const Tensor c = contiguous_as(t, dtype_v<I>);
    std::copy(c.data<I>(), c.data<I>() + t.int_numel(), values.begin());
  });
  return values;
}

// Writes `values` (row-major, out's element count) into the int32 or int64 tensor `out`.
void write_int64s(const Tensor& out, const std::vector<int64_t>& values) {
  const Tensor wide = Tensor::empty_contiguous(out.int_sizes(), DType::Int64);
  std::copy(values.begin(), values.end(), wide.mutable_data<int64_t>());
  copy_into(out, wide);
}

}  // namespace

void embedding_bag_out(const Tensor& weight, const Tensor& indices, const Tensor& offsets,
                       BagMode mode, const Tensor& per_sample_weights, int64_t padding_idx,
                       const Tensor& output, const Tensor& offset2bag, const Tensor& bag_size,
                       const Tensor& max_indices) {
  const std::vector<int64_t> index = int64_values(indices), offset = int64_values(offsets);
  const int64_t n = static_cast<int64_t>(index.size());
  const int64_t bags = output.int_size(0), dim = output.int_size(1);
  std::vector<int64_t> sizes(static_cast<size_t>(bags), 0);
  std::vector<int64_t> argmax(mode == BagMode::Max ? static_cast<size_t>(bags * dim) : 0, 0);
  visit_floating(weight.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor w = contiguous_as(weight, dtype_v<T>);
    const Tensor scale = per_sample_weights.defined()
                             ? contiguous_as(per_sample_weights, dtype_v<T>)
                             : Tensor();
    const T* rows = w.data<T>();
    write_as<T>(output, [&](T* out) {
      std::fill(out, out + bags * dim, T(0));
      for (int64_t b = 0; b < bags; ++b) {
        const int64_t begin = offset[static_cast<size_t>(b)];
        const int64_t end = b + 1 < static_cast<int64_t>(offset.size())
                                ? offset[static_cast<size_t>(b + 1)]
                                : n;
        T* bag = out + b * dim;
        int64_t taken = 0;
        for (int64_t k = begin; k < end; ++k) {
          const int64_t row = index[static_cast<size_t>(k)];
          if (row == padding_idx) continue;
          const T* r = rows + row * dim;
          const T s = scale.defined() ? scale.data<T>()[k] : T(1);
          for (int64_t d = 0; d < dim; ++d) {
            if (mode != BagMode::Max) {
              bag[d] += r[d] * s;
            } else if (taken == 0 || r[d] > bag[d]) {  // the first maximum wins
              bag[d] = r[d];
              argmax[static_cast<size_t>(b * dim + d)] = row;
            }
          }
          ++taken;
        }
        if (mode == BagMode::Mean && taken > 0) {
          for (int64_t d = 0; d < dim; ++d) bag[d] /= static_cast<T>(taken);
        }
        if (mode != BagMode::Sum) sizes[static_cast<size_t>(b)] = taken;
      }
    });
  });
  if (offset2bag.int_numel() > 0) {
    std::vector<int64_t> bag_of(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      bag_of[static_cast<size_t>(k)] =
          (std::upper_bound(offset.begin(), offset.end(), k) - offset.begin()) - 1;
    }
    write_int64s(offset2bag, bag_of);
  }
  write_int64s(bag_size, sizes);
  write_int64s(max_indices, mode == BagMode::Max ? argmax : sizes);
}

}  // namespace xport::kernels::cpu
