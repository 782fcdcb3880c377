#include "kernels/cpu/distance.h"

#include <algorithm>
#include <cmath>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

// |a - b|_p over m coordinates, accumulated in double.
template <class T>
T distance(const T* a, const T* b, int64_t m, double p) {
  double acc = 0;
  for (int64_t k = 0; k < m; ++k) {
    const double d = std::fabs(static_cast<double>(a[k]) - static_cast<double>(b[k]));
    if (p == 0) {
      acc += d != 0 ? 1 : 0;
    } else if (std::isinf(p)) {
      acc = std::isnan(d) || d > acc ? d : acc;
    } else if (p == 1) {
      acc += d;
    } else if (p == 2) {
      acc += d * d;
    } else {
      acc += std::pow(d, p);
    }
  }
  if (p == 0 || p == 1 || std::isinf(p)) return static_cast<T>(acc);
  return static_cast<T>(p == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / p));
}

}  // namespace

void cdist_out(const Tensor& x1, const Tensor& x2, double p, const Tensor& out) {
  const int64_t batches = out.int_size(0), rows = out.int_size(1), cols = out.int_size(2);
  const int64_t m = x1.int_size(2);
  visit_floating(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = x1.data<T>();
    const T* b = x2.data<T>();
    T* o = out.mutable_data<T>();
    parallel_for(0, batches * rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(cols * m, 1)),
                 [&](int64_t lo, int64_t hi) {
                   for (int64_t r = lo; r < hi; ++r) {
                     const int64_t batch = r / rows;
                     const T* row = a + r * m;
                     for (int64_t j = 0; j < cols; ++j)
                       o[r * cols + j] = distance(row, b + (batch * cols + j) * m, m, p);
                   }
                 });
  });
}

void pdist_out(const Tensor& x, double p, const Tensor& out) {
  const int64_t n = x.int_size(0), m = x.int_size(1);
  visit_floating(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* a = x.data<T>();
    T* o = out.mutable_data<T>();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) o[k++] = distance(a + i * m, a + j * m, m, p);
    }
  });
}

}  // namespace xport::kernels::cpu
