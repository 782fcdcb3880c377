// softmax / log_softmax: SIMD rows when reducing over the last dim, column blocks otherwise.
#include "kernels/cpu/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/vec_math.h"

namespace xport::kernels::cpu {
namespace {

constexpr int64_t kGrain = 32768;  // elements per parallel task
constexpr int64_t kCols = 256;     // columns per task when the dim is not the last

inline void exp_into(const float* x, float* y, int64_t n) { vec::exp(x, y, n); }
inline void exp_into(const double* x, double* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}

// Rows of `len` contiguous values (the dim is the last one).
void softmax_rows(const float* x, float* y, int64_t rows, int64_t len, bool log) {
  parallel_for(
      0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(len, 1)),
      [&](int64_t b, int64_t e) { vec::softmax_rows(x + b * len, y + b * len, e - b, len, log); });
}

// [outer, len, inner] along `len`, in blocks of columns; the inner loops run over contiguous
// columns.
template <class T>
void softmax_columns(const T* x, T* y, int64_t outer, int64_t len, int64_t inner, bool log) {
  const int64_t blocks = (inner + kCols - 1) / kCols;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(len * kCols, 1));
  parallel_for(0, outer * blocks, grain, [&](int64_t b, int64_t e) {
    T m[kCols], s[kCols], tmp[kCols];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / blocks, c0 = (t % blocks) * kCols;
      const int64_t nc = std::min(kCols, inner - c0);
      const T* xo = x + o * len * inner + c0;
      T* yo = y + o * len * inner + c0;
      std::fill(m, m + nc, -std::numeric_limits<T>::infinity());
      for (int64_t d = 0; d < len; ++d) {
        const T* p = xo + d * inner;
        for (int64_t j = 0; j < nc; ++j) m[j] = p[j] > m[j] ? p[j] : m[j];
      }
      std::fill(s, s + nc, T(0));
      for (int64_t d = 0; d < len; ++d) {
        const T* p = xo + d * inner;
        T* q = log ? tmp : yo + d * inner;
        for (int64_t j = 0; j < nc; ++j) tmp[j] = p[j] - m[j];
        exp_into(tmp, q, nc);
        for (int64_t j = 0; j < nc; ++j) s[j] += q[j];
      }
      if (log) {
        for (int64_t j = 0; j < nc; ++j) m[j] += std::log(s[j]);
        for (int64_t d = 0; d < len; ++d) {
          const T* p = xo + d * inner;
          T* q = yo + d * inner;
          for (int64_t j = 0; j < nc; ++j) q[j] = p[j] - m[j];
        }
      } else {
        for (int64_t j = 0; j < nc; ++j) s[j] = T(1) / s[j];
        for (int64_t d = 0; d < len; ++d) {
          T* q = yo + d * inner;
          for (int64_t j = 0; j < nc; ++j) q[j] *= s[j];
        }
      }
    }
  });
}

}  // namespace

void softmax_out(const Tensor& self, int64_t dim, bool log, const Tensor& out) {
  const DType cd = self.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  Tensor src = self;
  if (src.dtype() != cd || !src.is_contiguous()) {
    src = Tensor::empty_contiguous(self.int_sizes(), cd);
    copy_into(src, self);
  }
  const bool direct = out.dtype() == cd && out.is_contiguous();
  const Tensor dst = direct ? out : Tensor::empty_contiguous(out.int_sizes(), cd);
  const std::vector<int64_t> sizes = src.int_sizes();
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    (d < dim ? outer : d == dim ? len : inner) *= sizes[d];
  }
  if (cd == DType::Float32) {
    if (inner == 1) {
      softmax_rows(src.data<float>(), dst.mutable_data<float>(), outer, len, log);
    } else {
      softmax_columns(src.data<float>(), dst.mutable_data<float>(), outer, len, inner, log);
    }
  } else {
    softmax_columns(src.data<double>(), dst.mutable_data<double>(), outer, len, inner, log);
  }
  if (!direct) copy_into(out, dst);
}

}  // namespace xport::kernels::cpu
