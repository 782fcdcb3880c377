#include "kernels/cpu/sort.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

// Keys compare in float for 16-bit floats, as themselves otherwise.
template <class T>
using KeyOf = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class K>
bool is_nan(K v) {
  if constexpr (std::is_floating_point_v<K>)
    return std::isnan(v);
  else
    return false;
}
// a < b with NaN above everything.
template <class K>
bool less(K a, K b) {
  if constexpr (std::is_floating_point_v<K>)
    return (!std::isnan(a) && std::isnan(b)) || a < b;
  else
    return a < b;
}

// Rows along `dim`: how self's and the outputs' elements of row r are found.
struct Rows {
  std::vector<int64_t> sizes, strides;  // self's, with 0-dim seen as [1]
  int64_t dim = 0, n = 1, inner = 1, count = 0;
  Rows(const Tensor& self, int64_t d) : dim(d) {
    sizes = self.dim() == 0 ? std::vector<int64_t>{1} : self.int_sizes();
    strides = self.dim() == 0 ? std::vector<int64_t>{1} : self.int_strides();
    n = sizes[dim];
    for (size_t i = dim + 1; i < sizes.size(); ++i) inner *= sizes[i];
    count = 1;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (static_cast<int64_t>(i) != dim) count *= sizes[i];
  }
  int64_t self_offset(int64_t r) const {
    int64_t off = 0;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (d == dim) continue;
      off += (r % sizes[d]) * strides[d];
      r /= sizes[d];
    }
    return off;
  }
  // Offset of row r's first element in a contiguous output whose `dim` has size
  // m.
  int64_t out_offset(int64_t r, int64_t m) const { return (r / inner) * m * inner + r % inner; }
};

// Loads row r of self as (key, index) pairs, calls order(pairs) and writes the
// first m.
template <class T, class Order>
void for_each_row(const Tensor& self, const Rows& rows, int64_t m, const Tensor& values,
                  const Tensor& indices, const Order& order) {
  using K = KeyOf<T>;
  const T* src = static_cast<const T*>(self.raw_data());
  T* vals = static_cast<T*>(values.raw_data());
  int64_t* idx = indices.mutable_data<int64_t>();
  const int64_t n = rows.n, step = rows.strides[rows.dim], inner = rows.inner;
  parallel_for(0, rows.count, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)),
               [&](int64_t b, int64_t e) {
                 std::vector<std::pair<K, int64_t>> buf(n);
                 for (int64_t r = b; r < e; ++r) {
                   const T* row = src + rows.self_offset(r);
                   for (int64_t i = 0; i < n; ++i) buf[i] = {static_cast<K>(row[i * step]), i};
                   order(buf);
                   const int64_t o = rows.out_offset(r, m);
                   for (int64_t j = 0; j < m; ++j) {
                     vals[o + j * inner] = row[buf[j].second * step];
                     idx[o + j * inner] = buf[j].second;
                   }
                 }
               });
}

}  // namespace

void sort_out(const Tensor& self, int64_t dim, bool descending, const Tensor& values,
              const Tensor& indices) {
  const Rows rows(self, dim);
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using K = KeyOf<T>;
    for_each_row<T>(self, rows, rows.n, values, indices, [descending](auto& buf) {
      if (descending) {
        std::stable_sort(buf.begin(), buf.end(),
                         [](const auto& a, const auto& b) { return less<K>(b.first, a.first); });
      } else {
        std::stable_sort(buf.begin(), buf.end(),
                         [](const auto& a, const auto& b) { return less<K>(a.first, b.first); });
      }
    });
  });
}

void topk_out(const Tensor& self, int64_t k, int64_t dim, bool largest, bool /*sorted*/,
              const Tensor& values, const Tensor& indices) {
  const Rows rows(self, dim);
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using K = KeyOf<T>;
    // Ties go to the lower index, so results do not depend on the selection
    // algorithm.
    auto before = [largest](const std::pair<K, int64_t>& a, const std::pair<K, int64_t>& b) {
      const bool ab = largest ? less<K>(b.first, a.first) : less<K>(a.first, b.first);
      const bool ba = largest ? less<K>(a.first, b.first) : less<K>(b.first, a.first);
      return ab || (!ba && a.second < b.second);
    };
    for_each_row<T>(self, rows, k, values, indices, [k, &before](auto& buf) {
      if (k == 0) return;
      if (k * 64 < static_cast<int64_t>(buf.size())) {
        std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), before);
      } else {
        std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), before);
        std::sort(buf.begin(), buf.begin() + k, before);
      }
    });
  });
}

}  // namespace xport::kernels::cpu
