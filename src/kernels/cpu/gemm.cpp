#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/onednn.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

using Strides3 = std::array<int64_t, 3>;

// A view of t's storage with the given layout (no registry: kernels build views directly).
Tensor restride(const Tensor& t, std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  TensorMeta m;
  m.sizes.assign(sizes.begin(), sizes.end());
  m.strides.assign(strides.begin(), strides.end());
  m.storage_offset = t.storage_offset();
  m.dtype = t.dtype();
  return Tensor::make(t.storage(), std::move(m));
}

// A 2-D tensor as a batch of one.
Tensor as_batch(const Tensor& t) {
  return restride(t, {1, t.int_size(0), t.int_size(1)},
                  {0, t.int_strides()[0], t.int_strides()[1]});
}

Tensor contiguous_copy(const Tensor& t, DType dtype) {
  Tensor c = Tensor::empty_contiguous(t.int_sizes(), dtype);
  copy_into(c, t);
  return c;
}

Strides3 strides3(const Tensor& t) {
  const std::vector<int64_t> s = t.int_strides();
  return {s[0], s[1], s[2]};
}

// How BLAS reads a rows x cols matrix with strides (rs, cs): 'N' (row-major, leading dim rs) or
// 'T' (column-major, leading dim cs). False when neither describes it (the caller copies).
bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, char* trans, int64_t* ld) {
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(1, cols))) {
    *trans = 'N';
    *ld = rows == 1 ? std::max<int64_t>(1, cols) : rs;
    return true;
  }
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(1, rows))) {
    *trans = 'T';
    *ld = cols == 1 ? std::max<int64_t>(1, rows) : cs;
    return true;
  }
  return false;
}

// Batches of at most this many multiply-adds run one matrix per thread; larger ones run one
// after another, each on all threads inside sgemm.
constexpr int64_t kSmallGemm = int64_t{256} * 256 * 256;

// Up to this many rows, x @ W^T runs as (W @ x^T)^T (see sgemm_swapped): measured on this
// machine, the swapped form wins 1.5-8x at 1-128 rows and loses at 256+ rows with K = 768.
constexpr int64_t kSwapMaxRows = 128;

// c = alpha * a @ b + beta * c for a few rows of `a` times b = W^T, W an [n, k] row-major
// weight (ldw apart): a linear layer on a small batch. oneDNN 2.6's sgemm is 3-5x slower on this
// layout than on the transposed product c^T = W @ a^T with both operands untransposed (32 x
// 4096 x 4096: 52 vs 260 GFLOP/s), so compute that into `ct` and transpose back. `at` [k, m]
// and `ct` [n, m] are scratch.
dnnl_status_t sgemm_swapped(const float* a, int64_t ars, int64_t acs, const float* w, int64_t ldw,
                            float* c, int64_t m, int64_t n, int64_t k, float alpha, float beta,
                            float* at, float* ct) {
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t j = 0; j < k; ++j) at[j * m + r] = a[r * ars + j * acs];
  }
  if (beta != 0.0f) {
    parallel_for(0, n, 256, [&](int64_t lo, int64_t hi) {
      for (int64_t j = lo; j < hi; ++j) {
        for (int64_t r = 0; r < m; ++r) ct[j * m + r] = c[r * n + j];
      }
    });
  }
  const dnnl_status_t s = onednn_sgemm('N', 'N', n, m, k, alpha, w, ldw, at, m, beta, ct, m);
  parallel_for(0, m, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      for (int64_t j = 0; j < n; ++j) c[r * n + j] = ct[j * m + r];
    }
  });
  return s;
}

// c[i] = alpha * a[i] @ b[i] + beta * c[i] (beta 0: c is not read). c is contiguous.
void sgemm_batched(Tensor a, Tensor b, float alpha, float beta, const Tensor& c) {
  const int64_t batch = c.int_size(0), m = c.int_size(1), n = c.int_size(2), k = a.int_size(2);
  float* cd = c.mutable_data<float>();
  if (k == 0) {  // nothing to multiply: c = beta * c
    const int64_t total = c.int_numel();
    for (int64_t i = 0; i < total; ++i) cd[i] = beta == 0.0f ? 0.0f : beta * cd[i];
    return;
  }
  char ta, tb;
  int64_t lda, ldb;
  Strides3 as = strides3(a), bs = strides3(b);
  if (!blas_layout(m, k, as[1], as[2], &ta, &lda)) {
    a = contiguous_copy(a, DType::Float32);
    as = strides3(a);
    blas_layout(m, k, as[1], as[2], &ta, &lda);
  }
  if (!blas_layout(k, n, bs[1], bs[2], &tb, &ldb)) {
    b = contiguous_copy(b, DType::Float32);
    bs = strides3(b);
    blas_layout(k, n, bs[1], bs[2], &tb, &ldb);
  }
  const float* ad = a.data<float>();
  const float* bd = b.data<float>();
  const bool swap = tb == 'T' && m <= kSwapMaxRows && n >= 2 * m;
  std::vector<float> at, ct;  // a[i]^T and c[i]^T for the swapped form
  if (swap) {
    at.resize(static_cast<size_t>(k * m));
    ct.resize(static_cast<size_t>(n * m));
  }
  // A status can't be thrown from the parallel region: it is recorded and checked after.
  std::atomic<int> status{dnnl_success};
  auto run = [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const float* ai = ad + i * as[0];
      float* ci = cd + i * m * n;
      dnnl_status_t s;
      if (swap) {
        s = sgemm_swapped(ai, as[1], as[2], bd + i * bs[0], ldb, ci, m, n, k, alpha, beta,
                          at.data(), ct.data());
      } else {
        s = onednn_sgemm(ta, tb, m, n, k, alpha, ai, lda, bd + i * bs[0], ldb, beta, ci, n);
      }
      if (s != dnnl_success) status.store(s);
    }
  };
  if (swap) {  // the swapped form reuses one scratch pair: run the batch in order
    run(0, batch);
    XPORT_CHECK(status.load() == dnnl_success, Internal, "oneDNN sgemm failed with status ",
                status.load(), " for m=", m, " n=", n, " k=", k);
    return;
  }
  if (batch > 1 && m * n * k <= kSmallGemm)
    parallel_for(0, batch, 1, run);
  else
    run(0, batch);
  XPORT_CHECK(status.load() == dnnl_success, Internal, "oneDNN sgemm failed with status ",
              status.load(), " for m=", m, " n=", n, " k=", k);
}

// The portable path: one output row at a time, accumulating in Acc (double, or uint64 for
// integers so that overflow wraps like C instead of being undefined).
template <class T, class Acc>
void gemm_loop(const Tensor& a, const Tensor& b, Acc alpha, Acc beta, bool use_beta,
               const Tensor& c) {
  const int64_t batch = c.int_size(0), m = c.int_size(1), n = c.int_size(2), k = a.int_size(2);
  const Strides3 as = strides3(a), bs = strides3(b);
  const T* ad = a.data<T>();
  const T* bd = b.data<T>();
  T* cd = c.mutable_data<T>();
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, n * k));
  parallel_for(0, batch * m, grain, [&](int64_t lo, int64_t hi) {
    std::vector<Acc> acc(n);
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t bi = r / m, i = r % m;
      std::fill(acc.begin(), acc.end(), Acc(0));
      const T* arow = ad + bi * as[0] + i * as[1];
      const T* bmat = bd + bi * bs[0];
      for (int64_t p = 0; p < k; ++p) {
        const Acc av = static_cast<Acc>(arow[p * as[2]]);
        const T* brow = bmat + p * bs[1];
        if (bs[2] == 1) {
          for (int64_t j = 0; j < n; ++j) acc[j] += av * static_cast<Acc>(brow[j]);
        } else {
          for (int64_t j = 0; j < n; ++j) acc[j] += av * static_cast<Acc>(brow[j * bs[2]]);
        }
      }
      T* crow = cd + r * n;
      for (int64_t j = 0; j < n; ++j) {
        const Acc prod = alpha * acc[j];
        crow[j] = static_cast<T>(use_beta ? beta * static_cast<Acc>(crow[j]) + prod : prod);
      }
    }
  });
}

bool is_zero(const Scalar& s) { return s.to_double() == 0.0; }

// out3 = beta * self + alpha * a3 @ b3 over 3-D views; `self` may be undefined (beta ignored).
void gemm(const Tensor& self, const Tensor& a3, const Tensor& b3, const Scalar& beta,
          const Scalar& alpha, const Tensor& out3) {
  if (out3.int_numel() == 0) return;
  const DType dt = out3.dtype();
  const bool half = dt == DType::Float16 || dt == DType::BFloat16;
  const DType ct = half ? DType::Float32 : dt;
  const Tensor c =
      out3.is_contiguous() && !half ? out3 : Tensor::empty_contiguous(out3.int_sizes(), ct);
  const bool use_beta = self.defined() && !is_zero(beta);
  if (use_beta) copy_into(c, self);
  const Tensor a = half ? contiguous_copy(a3, ct) : a3;
  const Tensor b = half ? contiguous_copy(b3, ct) : b3;
  switch (ct) {
    case DType::Float32:
      sgemm_batched(a, b, static_cast<float>(alpha.to_double()),
                    use_beta ? static_cast<float>(beta.to_double()) : 0.0f, c);
      break;
    case DType::Float64:
      gemm_loop<double, double>(a, b, alpha.to_double(), beta.to_double(), use_beta, c);
      break;
    default:
      visit_dtype(ct, [&](auto v) {
        using T = decltype(v);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          gemm_loop<T, uint64_t>(a, b, static_cast<uint64_t>(alpha.to_int()),
                                 static_cast<uint64_t>(beta.to_int()), use_beta, c);
        } else {
          XPORT_FAIL(InvalidInput, "gemm: unsupported dtype ", dtype_name(ct));
        }
      });
  }
  if (!c.is_same(out3)) copy_into(out3, c);
}

}  // namespace

void mm_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  gemm(Tensor(), as_batch(a), as_batch(b), 0, 1, as_batch(out));
}

void addmm_out(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
               const Scalar& alpha, const Tensor& out) {
  gemm(self, as_batch(a), as_batch(b), beta, alpha, as_batch(out));
}

void bmm_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  gemm(Tensor(), a, b, 0, 1, out);
}

void baddbmm_out(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
                 const Scalar& alpha, const Tensor& out) {
  gemm(self, a, b, beta, alpha, out);
}

void dot_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  const int64_t k = a.int_size(0);
  const Tensor a3 = restride(a, {1, 1, k}, {0, 0, a.int_strides()[0]});
  const Tensor b3 = restride(b, {1, k, 1}, {0, b.int_strides()[0], 1});
  gemm(Tensor(), a3, b3, 0, 1, restride(out, {1, 1, 1}, {1, 1, 1}));
}

}  // namespace xport::kernels::cpu
