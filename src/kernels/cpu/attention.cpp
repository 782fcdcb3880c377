#include "kernels/cpu/attention.h"


#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/onednn.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/vec_math.h"

namespace xport::kernels::cpu {
namespace {

constexpr int64_t kQueryBlock = 64;  // query rows per task: scores are kQueryBlock x S



// `sizes` with leading 1s up to `rank` dims.
std::vector<int64_t> padded(std::vector<int64_t> sizes, size_t rank) {
  sizes.insert(sizes.begin(), rank - std::min(rank, sizes.size()), 1);
  return sizes;
}

// For each flat index into `batch`, the element offset of that batch's matrix
// in a contiguous tensor of `sizes` (same rank as batch + 2) whose batch dims
// broadcast to `batch`.
std::vector<int64_t> batch_offsets(const std::vector<int64_t>& sizes,
                                   const std::vector<int64_t>& batch) {
  const size_t nb = batch.size();
  std::vector<int64_t> stride(nb, 0);
  int64_t s = sizes[nb] * sizes[nb + 1];
  for (size_t d = nb; d-- > 0;) {
    stride[d] = sizes[d] == 1 ? 0 : s;
    s *= sizes[d];
  }
  int64_t count = 1;
  for (int64_t b : batch) count *= b;
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    int64_t rem = i, off = 0;
    for (size_t d = nb; d-- > 0;) {
      off += (rem % batch[d]) * stride[d];
      rem /= batch[d];
    }
    offsets[static_cast<size_t>(i)] = off;
  }
  return offsets;
}

// Row-major C[m, n] = alpha * A[m, k] B[n, k]^T and C[m, n] = A[m, k] B[k, n].
void gemm_nt(int64_t m, int64_t n, int64_t k, float alpha, const float* a, const float* b,
             float* c) {
  onednn_sgemm('N', 'T', m, n, k, alpha, a, k, b, k, 0.0f, c, n);
}
void gemm_nn(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
             float* c) {
  onednn_sgemm('N', 'N', m, n, k, 1.0f, a, lda, b, n, 0.0f, c, n);
}
void gemm_nt(int64_t m, int64_t n, int64_t k, double alpha, const double* a, const double* b,
             double* c) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += a[i * k + p] * b[j * k + p];
      c[i * n + j] = alpha * s;
    }
  }
}
void gemm_nn(int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
             double* c) {
  for (int64_t i = 0; i < m; ++i) {
    double* ci = c + i * n;
    std::fill(ci, ci + n, 0.0);
    for (int64_t p = 0; p < k; ++p) {
      const double aip = a[i * lda + p];
      const double* bp = b + p * n;
      for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

void softmax_rows(float* x, int64_t rows, int64_t cols) {
  vec::softmax_rows(x, x, rows, cols, false);
}
void softmax_rows(double* x, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    double* xr = x + r * cols;
    const double m = *std::max_element(xr, xr + cols);
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += xr[j] = std::exp(xr[j] - m);
    for (int64_t j = 0; j < cols; ++j) xr[j] /= sum;
  }
}

template <class T>
void attention_typed(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                     bool is_causal, double scale, const Tensor& out) {
  const std::vector<int64_t> out_sizes = out.int_sizes();
  const size_t rank = out_sizes.size();
  const std::vector<int64_t> batch(out_sizes.begin(), out_sizes.end() - 2);
  const int64_t L = out_sizes[rank - 2];
  const int64_t Ev = out_sizes[rank - 1];
  const int64_t E = q.int_size(q.dim() - 1);
  const int64_t S = k.int_size(k.dim() - 2);
  const Tensor qc = contiguous_as(q, dtype_v<T>);
  const Tensor kc = contiguous_as(k, dtype_v<T>);
  const Tensor vc = contiguous_as(v, dtype_v<T>);
  const std::vector<int64_t> q_off = batch_offsets(padded(q.int_sizes(), rank), batch);
  const std::vector<int64_t> k_off = batch_offsets(padded(k.int_sizes(), rank), batch);
  const std::vector<int64_t> v_off = batch_offsets(padded(v.int_sizes(), rank), batch);

  // The mask as additive T values in its own (broadcastable) shape.
  std::vector<T> additive;
  std::vector<int64_t> m_off;
  int64_t m_row = 0, m_col = 0;
  if (mask.defined()) {
    const std::vector<int64_t> m_sizes = padded(mask.int_sizes(), rank);
    if (mask.dtype() == DType::Bool) {
      const Tensor mb = contiguous_as(mask, DType::Bool);
      const bool* p = mb.data<bool>();
      additive.resize(static_cast<size_t>(mb.int_numel()));
      for (size_t i = 0; i < additive.size(); ++i) {
        additive[i] = p[i] ? T(0) : -std::numeric_limits<T>::infinity();
      }
    } else {
      const Tensor mf = contiguous_as(mask, dtype_v<T>);
      additive.assign(mf.data<T>(), mf.data<T>() + mf.int_numel());
    }
    m_off = batch_offsets(m_sizes, batch);
    m_row = m_sizes[rank - 2] == 1 ? 0 : m_sizes[rank - 1];
    m_col = m_sizes[rank - 1] == 1 ? 0 : 1;
  }

  const T* Q = qc.data<T>();
  const T* K = kc.data<T>();
  const T* V = vc.data<T>();
  const int64_t B = static_cast<int64_t>(q_off.size());
  const int64_t blocks = (L + kQueryBlock - 1) / kQueryBlock;
  write_as<T>(out, [&](T* O) {
    if (S == 0) {  // softmax over no keys: every output row is an empty sum
      std::fill(O, O + B * L * Ev, T(0));
      return;
    }
    parallel_for(0, B * blocks, 1, [&](int64_t t0, int64_t t1) {
      std::vector<T> scores(static_cast<size_t>(kQueryBlock * S));
      for (int64_t task = t0; task < t1; ++task) {
        const int64_t b = task / blocks;
        const int64_t r0 = (task % blocks) * kQueryBlock;
        const int64_t rows = std::min(kQueryBlock, L - r0);
        // Causal: keys past the block's last query are masked for every row;
        // skip them.
        const int64_t cols = is_causal ? std::min(S, r0 + rows) : S;
        T* s = scores.data();
        if (E == 0)
          std::fill(s, s + rows * cols, T(0));
        else
          gemm_nt(rows, cols, E, static_cast<T>(scale), Q + q_off[b] + r0 * E, K + k_off[b], s);
        for (int64_t i = 0; i < rows; ++i) {
          T* si = s + i * cols;
          const int64_t row = r0 + i;
          if (!additive.empty()) {
            const T* m = additive.data() + m_off[b] + row * m_row;
            for (int64_t j = 0; j < cols; ++j) si[j] += m[j * m_col];
          }
          if (is_causal) {
            for (int64_t j = row + 1; j < cols; ++j) si[j] = -std::numeric_limits<T>::infinity();
          }
        }
        softmax_rows(s, rows, cols);
        gemm_nn(rows, Ev, cols, s, cols, V + v_off[b], O + (b * L + r0) * Ev);
      }
    });
  });
}

}  // namespace

void scaled_dot_product_attention_out(const Tensor& q, const Tensor& k, const Tensor& v,
                                      const Tensor& mask, bool is_causal, double scale,
                                      const Tensor& out) {
  if (q.dtype() == DType::Float64)
    attention_typed<double>(q, k, v, mask, is_causal, scale, out);
  else
    attention_typed<float>(q, k, v, mask, is_causal, scale, out);
}

}  // namespace xport::kernels::cpu
