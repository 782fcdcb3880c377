// Reductions: one strided engine for any layout (double or wrapping int64 accumulation), and
// float32 fast paths for contiguous inputs reduced over one block of dims.
// Over 600 lines on purpose: every reduction is a template instantiated over the engine's
// private geometry (Geom, for_each_reduced) and dtype visitors; split into files, those would
// become a header of internals that each file instantiates again.
#include "kernels/cpu/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/vec_math.h"

namespace xport::kernels::cpu {
namespace {

constexpr int64_t kGrain = 32768;   // elements per parallel task
constexpr int64_t kChunk = 4096;    // exp values summed in float before joining a double sum
constexpr int64_t kCols = 256;      // columns per task when reducing over outer dims
constexpr int64_t kSumCols = 1024;  // columns per task of a float32 column sum (long streams)
constexpr size_t kMaxDims = 64;

// ---- dtypes ----

Tensor converted(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor c = Tensor::empty_contiguous(t.int_sizes(), dtype);
  copy_into(c, t);
  return c;
}

Tensor contiguous_copy(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = Tensor::empty_contiguous(t.int_sizes(), t.dtype());
  copy_into(c, t);
  return c;
}

// The dtype a kernel computes in: float32 (also for 16-bit floats), float64, or int64 (integers
// and bool).
DType compute_dtype(DType d) {
  if (d == DType::Float64) return d;
  return is_floating(d) ? DType::Float32 : DType::Int64;
}

template <class Fn>
void visit_compute(DType d, Fn&& fn) {
  switch (d) {
    case DType::Float32:
      fn(float{});
      break;
    case DType::Float64:
      fn(double{});
      break;
    default:
      fn(int64_t{});
      break;
  }
}

// Calls fill(T* dst) on out's data when out is contiguous of T's dtype, else on a temporary that
// is then converted into out.
template <class T, class F>
void write_result(const Tensor& out, F&& fill) {
  if (out.dtype() == dtype_v<T> && out.is_contiguous()) {
    fill(static_cast<T*>(out.raw_data()));
    return;
  }
  Tensor tmp = Tensor::empty_contiguous(out.int_sizes(), dtype_v<T>);
  fill(static_cast<T*>(tmp.raw_data()));
  copy_into(out, tmp);
}

// Accumulators: double for floats, uint64 for integers (wraps like two's complement).
template <class T>
using WideAcc = std::conditional_t<std::is_same_v<T, int64_t>, uint64_t, double>;

// ---- the strided engine ----

// Kept and reduced dims of self, each coalesced; strides in elements.
struct Geom {
  std::vector<int64_t> out_sizes, out_strides;
  std::vector<int64_t> red_sizes, red_strides;
  int64_t n_out = 1, n_red = 1;
};

// Drops size-1 dims and merges neighbours that are laid out as one (row-major order is kept).
void coalesce(std::vector<int64_t>& sizes, std::vector<int64_t>& strides) {
  std::vector<int64_t> s, st;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    if (!s.empty() && st.back() == strides[i] * sizes[i]) {
      s.back() *= sizes[i];
      st.back() = strides[i];
    } else {
      s.push_back(sizes[i]);
      st.push_back(strides[i]);
    }
  }
  sizes = std::move(s);
  strides = std::move(st);
}

Geom make_geom(const Tensor& self, const std::vector<int64_t>& dims) {
  const std::vector<int64_t> sizes = self.int_sizes(), strides = self.int_strides();
  Geom g;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const bool reduced = std::binary_search(dims.begin(), dims.end(), static_cast<int64_t>(d));
    (reduced ? g.red_sizes : g.out_sizes).push_back(sizes[d]);
    (reduced ? g.red_strides : g.out_strides).push_back(strides[d]);
    (reduced ? g.n_red : g.n_out) *= sizes[d];
  }
  coalesce(g.out_sizes, g.out_strides);
  coalesce(g.red_sizes, g.red_strides);
  XPORT_CHECK(g.red_sizes.size() <= kMaxDims, InvalidInput, "reduction: more than ", kMaxDims,
              " non-contiguous reduced dims are not supported");
  return g;
}

// Offset in self of the first element reduced into output `o`.
int64_t out_offset(const Geom& g, int64_t o) {
  int64_t off = 0;
  for (size_t i = g.out_sizes.size(); i-- > 0;) {
    off += (o % g.out_sizes[i]) * g.out_strides[i];
    o /= g.out_sizes[i];
  }
  return off;
}

// Calls f(offset, k) for the reduced elements k in [kb, ke), in row-major order.
template <class F>
inline void for_each_reduced(const Geom& g, int64_t kb, int64_t ke, F&& f) {
  const size_t nd = g.red_sizes.size();
  if (nd == 0) {
    if (kb < ke) f(int64_t{0}, int64_t{0});
    return;
  }
  const int64_t last = g.red_sizes[nd - 1], ls = g.red_strides[nd - 1];
  if (nd == 1) {
    for (int64_t k = kb; k < ke; ++k) f(k * ls, k);
    return;
  }
  int64_t idx[kMaxDims];
  int64_t rem = kb, base = 0;
  for (size_t i = nd; i-- > 0;) {
    idx[i] = rem % g.red_sizes[i];
    rem /= g.red_sizes[i];
    base += idx[i] * g.red_strides[i];
  }
  int64_t k = kb;
  while (k < ke) {
    const int64_t n = std::min(last - idx[nd - 1], ke - k);
    for (int64_t j = 0; j < n; ++j) f(base + j * ls, k + j);
    k += n;
    base -= idx[nd - 1] * ls;
    idx[nd - 1] = 0;
    for (size_t i = nd - 1; i-- > 0;) {
      base += g.red_strides[i];
      if (++idx[i] < g.red_sizes[i]) break;
      base -= idx[i] * g.red_strides[i];
      idx[i] = 0;
    }
  }
}

// Reduces every output with `op` (init(o), add(acc, value, k), join(acc, later_acc)) and hands
// the result to store(o, acc). One long reduction is split across threads.
template <class T, class Op, class Store>
void reduce_strided(const Geom& g, const T* in, const Op& op, Store&& store) {
  using Acc = decltype(op.init(int64_t{0}));
  if (g.n_out == 0) return;
  const int threads = num_threads();
  if (g.n_out == 1 && g.n_red >= 2 * kGrain && threads > 1) {
    const int64_t chunks = std::min<int64_t>(threads, g.n_red / kGrain);
    const int64_t per = (g.n_red + chunks - 1) / chunks;
    struct Box {
      Acc acc;
    };
    std::vector<Box> partial(chunks, Box{op.init(0)});
    const T* base = in + out_offset(g, 0);
    parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        Acc acc = op.init(0);
        for_each_reduced(g, c * per, std::min(g.n_red, (c + 1) * per),
                         [&](int64_t off, int64_t k) { op.add(acc, base[off], k); });
        partial[c].acc = acc;
      }
    });
    Acc acc = partial[0].acc;
    for (int64_t c = 1; c < chunks; ++c) op.join(acc, partial[c].acc);
    store(0, acc);
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(g.n_red, 1));
  parallel_for(0, g.n_out, grain, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const T* base = in + out_offset(g, o);
      Acc acc = op.init(o);
      for_each_reduced(g, 0, g.n_red, [&](int64_t off, int64_t k) { op.add(acc, base[off], k); });
      store(o, acc);
    }
  });
}

// ---- reduction ops for the engine ----

template <class T>
struct SumOp {
  WideAcc<T> init(int64_t) const { return 0; }
  void add(WideAcc<T>& a, T v, int64_t) const { a += static_cast<WideAcc<T>>(v); }
  void join(WideAcc<T>& a, WideAcc<T> b) const { a += b; }
};

template <class T>
struct ProdOp {
  WideAcc<T> init(int64_t) const { return 1; }
  void add(WideAcc<T>& a, T v, int64_t) const { a *= static_cast<WideAcc<T>>(v); }
  void join(WideAcc<T>& a, WideAcc<T> b) const { a *= b; }
};

template <class T>
inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

// True when v replaces the current best (greater for max, smaller for min, or NaN).
template <class T, bool kMax>
inline bool better(T v, T best) {
  if constexpr (kMax)
    return v > best || is_nan(v);
  else
    return v < best || is_nan(v);
}

template <class T, bool kMax>
constexpr T worst() {
  if constexpr (std::is_floating_point_v<T>) {
    return kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  } else {
    return kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
}

template <class T, bool kMax>
struct ExtremumOp {
  T init(int64_t) const { return worst<T, kMax>(); }
  // Once NaN, better() is false for every non-NaN value, so NaN stays.
  void add(T& a, T v, int64_t) const {
    if (better<T, kMax>(v, a)) a = v;
  }
  void join(T& a, T b) const { add(a, b, 0); }
};

template <class T>
struct ValueIndex {
  T v;
  int64_t i;
};

template <class T, bool kMax>
struct ArgOp {
  ValueIndex<T> init(int64_t) const { return {worst<T, kMax>(), 0}; }
  // Strict comparisons keep the first of equal values; the first NaN is kept for good.
  void add(ValueIndex<T>& a, T v, int64_t k) const {
    if (!is_nan(a.v) && better<T, kMax>(v, a.v)) a = {v, k};
  }
  void join(ValueIndex<T>& a, const ValueIndex<T>& b) const { add(a, b.v, b.i); }
};

template <class T, bool kAny>
struct AnyAllOp {
  uint8_t init(int64_t) const { return kAny ? 0 : 1; }
  void add(uint8_t& a, T v, int64_t) const {
    if constexpr (kAny)
      a |= static_cast<uint8_t>(v != T(0));
    else
      a &= static_cast<uint8_t>(v != T(0));
  }
  void join(uint8_t& a, uint8_t b) const {
    if constexpr (kAny)
      a |= b;
    else
      a &= b;
  }
};

// Sum of squared deviations from each output's mean.
template <class T>
struct SquaredDeviationOp {
  const double* means;
  struct Acc {
    double mean, ss;
  };
  Acc init(int64_t o) const { return {means[o], 0.0}; }
  void add(Acc& a, T v, int64_t) const {
    const double d = static_cast<double>(v) - a.mean;
    a.ss += d * d;
  }
  void join(Acc& a, const Acc& b) const { a.ss += b.ss; }
};

// sum of exp(v - shift) with each output's shift, for logsumexp.
template <class T>
struct SumExpOp {
  const double* shifts;
  struct Acc {
    double shift, sum;
  };
  Acc init(int64_t o) const { return {shifts[o], 0.0}; }
  void add(Acc& a, T v, int64_t) const { a.sum += std::exp(static_cast<double>(v) - a.shift); }
  void join(Acc& a, const Acc& b) const { a.sum += b.sum; }
};

// logsumexp shifts by the max, except where it is infinite (all -inf rows give -inf, rows with
// +inf give +inf, as in ATen).
template <class T>
inline T lse_shift(T max) {
  return std::isinf(max) ? T(0) : max;
}

// ---- float32 fast paths ----

// A contiguous self reduced over one block of dims is [outer, reduced, inner]; size-1 dims do
// not matter. False when the reduced dims are split by a kept one, or self is not contiguous.
bool as_block(const Tensor& self, const std::vector<int64_t>& dims, int64_t& outer,
              int64_t& reduced, int64_t& inner) {
  if (!self.is_contiguous()) return false;
  const std::vector<int64_t> sizes = self.int_sizes();
  outer = reduced = inner = 1;
  int state = 0;  // 0 before the reduced block, 1 inside it, 2 after it
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (std::binary_search(dims.begin(), dims.end(), static_cast<int64_t>(d))) {
      if (state == 2) return false;
      state = 1;
      reduced *= sizes[d];
    } else if (state == 0) {
      outer *= sizes[d];
    } else {
      state = 2;
      inner *= sizes[d];
    }
  }
  return true;
}

// Sums floats with SIMD, adding each value in double: float accumulation of n values is off by
// about sqrt(n) ulps, enough to miss PyTorch's tolerance around 100k values.
double sum_span(const float* x, int64_t n) { return vec::sum_f64(x, n); }

// out[r] = row_fn(row r) for `rows` rows of `cols` floats; few long rows are split into parts
// whose results join with `join`.
template <class RowFn, class Join>
void reduce_rows_f32(const float* x, int64_t rows, int64_t cols, float* out, RowFn&& row_fn,
                     Join&& join) {
  const int threads = num_threads();
  if (rows >= threads || cols < 2 * kGrain || threads <= 1) {
    parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(cols, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t r = b; r < e; ++r)
                     out[r] = static_cast<float>(row_fn(x + r * cols, cols));
                 });
    return;
  }
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(threads, cols / kGrain));
  const int64_t per = (cols + parts - 1) / parts;
  std::vector<double> partial(rows * parts);
  parallel_for(0, rows * parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t r = t / parts, begin = (t % parts) * per;
      partial[t] = row_fn(x + r * cols + begin, std::max<int64_t>(0, std::min(per, cols - begin)));
    }
  });
  for (int64_t r = 0; r < rows; ++r) {
    double acc = partial[r * parts];
    for (int64_t p = 1; p < parts; ++p) acc = join(acc, partial[r * parts + p]);
    out[r] = static_cast<float>(acc);
  }
}

// [outer, reduced, inner] summed over `reduced` into double column accumulators, times `scale`.
void sum_columns_f32(const float* x, int64_t outer, int64_t reduced, int64_t inner, double scale,
                     float* out) {
  const int64_t blocks = (inner + kSumCols - 1) / kSumCols;
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(reduced * kSumCols, 1));
  parallel_for(0, outer * blocks, grain, [&](int64_t b, int64_t e) {
    double acc[kSumCols];
    for (int64_t t = b; t < e; ++t) {
      const int64_t o = t / blocks, c0 = (t % blocks) * kSumCols;
      const int64_t nc = std::min(kSumCols, inner - c0);
      std::fill(acc, acc + nc, 0.0);
      const float* p = x + o * reduced * inner + c0;
      // Four rows are added in float (pairwise), then joined to the double column sums.
      int64_t r = 0;
      for (; r + 4 <= reduced; r += 4, p += 4 * inner) {
        const float *p1 = p + inner, *p2 = p + 2 * inner, *p3 = p + 3 * inner;
        for (int64_t j = 0; j < nc; ++j)
          acc[j] += static_cast<double>((p[j] + p1[j]) + (p2[j] + p3[j]));
      }
      for (; r < reduced; ++r, p += inner) {
        for (int64_t j = 0; j < nc; ++j) acc[j] += p[j];
      }
      float* y = out + o * inner + c0;
      for (int64_t j = 0; j < nc; ++j) y[j] = static_cast<float>(acc[j] * scale);
    }
  });
}

// sum and mean (scale 1/n): self is converted to out's dtype first, as ATen does.
void sum_impl(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out, bool mean) {
  const DType cd = compute_dtype(out.dtype());
  const Tensor src = converted(converted(self, out.dtype()), cd);
  const Geom g = make_geom(src, dims);
  const double scale = mean ? 1.0 / static_cast<double>(g.n_red) : 1.0;
  int64_t outer, reduced, inner;
  if (cd == DType::Float32 && as_block(src, dims, outer, reduced, inner)) {
    const float* x = src.data<float>();
    write_result<float>(out, [&](float* y) {
      if (inner == 1) {
        reduce_rows_f32(
            x, outer, reduced, y,
            [scale](const float* row, int64_t n) { return sum_span(row, n) * scale; },
            [](double a, double b) { return a + b; });
      } else {
        sum_columns_f32(x, outer, reduced, inner, scale, y);
      }
    });
    return;
  }
  visit_compute(cd, [&](auto tag) {
    using T = decltype(tag);
    write_result<T>(out, [&](T* y) {
      reduce_strided(g, src.data<T>(), SumOp<T>{}, [&](int64_t o, WideAcc<T> acc) {
        if constexpr (std::is_same_v<T, int64_t>)
          y[o] = static_cast<int64_t>(acc);
        else
          y[o] = static_cast<T>(acc * scale);
      });
    });
  });
}

template <bool kMax>
void extremum_impl(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  const DType cd = compute_dtype(self.dtype());
  const Tensor src = converted(self, cd);
  int64_t outer, reduced, inner;
  if (cd == DType::Float32 && as_block(src, dims, outer, reduced, inner) && inner == 1) {
    const float* x = src.data<float>();
    write_result<float>(out, [&](float* y) {
      reduce_rows_f32(
          x, outer, reduced, y,
          [](const float* row, int64_t n) {
            return static_cast<double>(kMax ? vec::amax(row, n) : vec::amin(row, n));
          },
          [](double a, double b) {
            if (a != a || b != b) return std::numeric_limits<double>::quiet_NaN();
            return kMax ? std::max(a, b) : std::min(a, b);
          });
    });
    return;
  }
  const Geom g = make_geom(src, dims);
  visit_compute(cd, [&](auto tag) {
    using T = decltype(tag);
    write_result<T>(out, [&](T* y) {
      reduce_strided(g, src.data<T>(), ExtremumOp<T, kMax>{}, [&](int64_t o, T v) { y[o] = v; });
    });
  });
}

template <bool kMax>
void with_indices_impl(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& values,
                       const Tensor& indices) {
  const DType cd = compute_dtype(self.dtype());
  const Tensor src = converted(self, cd);
  int64_t outer, reduced, inner;
  if (cd == DType::Float32 && as_block(src, dims, outer, reduced, inner) && inner == 1 &&
      reduced > 0) {
    // Rows: the extreme value by SIMD, then the first index holding it (or the first NaN).
    const float* x = src.data<float>();
    write_result<int64_t>(indices, [&](int64_t* idx) {
      const auto run = [&](float* val) {
        parallel_for(0, outer, std::max<int64_t>(1, kGrain / reduced), [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; ++r) {
            const float* row = x + r * reduced;
            const float m = kMax ? vec::amax(row, reduced) : vec::amin(row, reduced);
            int64_t i = 0;
            if (m != m) {
              while (row[i] == row[i]) ++i;
            } else {
              while (row[i] != m) ++i;
            }
            idx[r] = i;
            if (val != nullptr) val[r] = row[i];
          }
        });
      };
      if (values.defined())
        write_result<float>(values, run);
      else
        run(nullptr);
    });
    return;
  }
  const Geom g = make_geom(src, dims);
  visit_compute(cd, [&](auto tag) {
    using T = decltype(tag);
    const T* x = src.data<T>();
    write_result<int64_t>(indices, [&](int64_t* idx) {
      if (!values.defined()) {
        reduce_strided(g, x, ArgOp<T, kMax>{},
                       [&](int64_t o, const ValueIndex<T>& a) { idx[o] = a.i; });
        return;
      }
      write_result<T>(values, [&](T* val) {
        reduce_strided(g, x, ArgOp<T, kMax>{}, [&](int64_t o, const ValueIndex<T>& a) {
          val[o] = a.v;
          idx[o] = a.i;
        });
      });
    });
  });
}

template <bool kAny>
void any_all_impl(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  const DType cd = compute_dtype(self.dtype());
  // Converting 16-bit floats to float32 keeps zero and nonzero apart.
  const Tensor src = converted(self, cd);
  const Geom g = make_geom(src, dims);
  visit_compute(cd, [&](auto tag) {
    using T = decltype(tag);
    write_result<uint8_t>(out, [&](uint8_t* y) {
      reduce_strided(g, src.data<T>(), AnyAllOp<T, kAny>{},
                     [&](int64_t o, uint8_t v) { y[o] = v; });
    });
  });
}

}  // namespace

void sum_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  sum_impl(self, dims, out, /*mean=*/false);
}

void mean_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  sum_impl(self, dims, out, /*mean=*/true);
}

void prod_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  const DType cd = compute_dtype(out.dtype());
  const Tensor src = converted(converted(self, out.dtype()), cd);
  const Geom g = make_geom(src, dims);
  visit_compute(cd, [&](auto tag) {
    using T = decltype(tag);
    write_result<T>(out, [&](T* y) {
      reduce_strided(g, src.data<T>(), ProdOp<T>{},
                     [&](int64_t o, WideAcc<T> acc) { y[o] = static_cast<T>(acc); });
    });
  });
}

void amax_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  extremum_impl<true>(self, dims, out);
}

void amin_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  extremum_impl<false>(self, dims, out);
}

void max_with_indices_out(const Tensor& self, const std::vector<int64_t>& dims,
                          const Tensor& values, const Tensor& indices) {
  with_indices_impl<true>(self, dims, values, indices);
}

void min_with_indices_out(const Tensor& self, const std::vector<int64_t>& dims,
                          const Tensor& values, const Tensor& indices) {
  with_indices_impl<false>(self, dims, values, indices);
}

void var_out(const Tensor& self, const std::vector<int64_t>& dims, double correction,
             bool take_sqrt, const Tensor& out) {
  const DType cd = compute_dtype(self.dtype());
  const Tensor src = converted(self, cd);
  const Geom g = make_geom(src, dims);
  const double divisor = std::max(0.0, static_cast<double>(g.n_red) - correction);
  visit_compute(cd, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* x = src.data<T>();
      // Two passes in double: the mean, then the squared deviations from it.
      std::vector<double> means(g.n_out);
      const double inv_n = 1.0 / static_cast<double>(g.n_red);
      reduce_strided(g, x, SumOp<T>{}, [&](int64_t o, double s) { means[o] = s * inv_n; });
      write_result<T>(out, [&](T* y) {
        reduce_strided(g, x, SquaredDeviationOp<T>{means.data()},
                       [&](int64_t o, const typename SquaredDeviationOp<T>::Acc& a) {
                         const double v = a.ss / divisor;
                         y[o] = static_cast<T>(take_sqrt ? std::sqrt(v) : v);
                       });
      });
    }
  });
}

void logsumexp_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  const DType cd = compute_dtype(out.dtype());
  const Tensor src = converted(self, cd);
  int64_t outer, reduced, inner;
  if (cd == DType::Float32 && as_block(src, dims, outer, reduced, inner) && inner == 1) {
    const float* x = src.data<float>();
    write_result<float>(out, [&](float* y) {
      parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(reduced, 1)),
                   [&](int64_t b, int64_t e) {
                     for (int64_t r = b; r < e; ++r) {
                       const float* row = x + r * reduced;
                       const float shift = lse_shift(vec::max(row, reduced));
                       double s = 0;
                       for (int64_t i = 0; i < reduced; i += kChunk) {
                         s += vec::sum_exp(row + i, std::min(kChunk, reduced - i), shift);
                       }
                       y[r] = static_cast<float>(std::log(s) + shift);
                     }
                   });
    });
    return;
  }
  const Geom g = make_geom(src, dims);
  visit_compute(cd, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T* x = src.data<T>();
      std::vector<double> shifts(g.n_out);
      reduce_strided(g, x, ExtremumOp<T, true>{},
                     [&](int64_t o, T m) { shifts[o] = lse_shift(static_cast<double>(m)); });
      write_result<T>(out, [&](T* y) {
        reduce_strided(g, x, SumExpOp<T>{shifts.data()},
                       [&](int64_t o, const typename SumExpOp<T>::Acc& a) {
                         y[o] = static_cast<T>(std::log(a.sum) + a.shift);
                       });
      });
    }
  });
}

void any_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  any_all_impl<true>(self, dims, out);
}

void all_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out) {
  any_all_impl<false>(self, dims, out);
}

void cumsum_out(const Tensor& self, int64_t dim, const Tensor& out) {
  const DType cd = compute_dtype(out.dtype());
  const Tensor src = contiguous_copy(converted(converted(self, out.dtype()), cd));
  const std::vector<int64_t> sizes = src.int_sizes();
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    (d < dim ? outer : d == dim ? len : inner) *= sizes[d];
  }
  visit_compute(cd, [&](auto tag) {
    using T = decltype(tag);
    using Acc = WideAcc<T>;
    const T* x = src.data<T>();
    write_result<T>(out, [&](T* y) {
      if (inner == 1) {
        parallel_for(0, outer, std::max<int64_t>(1, kGrain / std::max<int64_t>(len, 1)),
                     [&](int64_t b, int64_t e) {
                       for (int64_t o = b; o < e; ++o) {
                         Acc acc = 0;
                         for (int64_t d = o * len; d < (o + 1) * len; ++d) {
                           acc += static_cast<Acc>(x[d]);
                           y[d] = static_cast<T>(acc);
                         }
                       }
                     });
        return;
      }
      const int64_t blocks = (inner + kCols - 1) / kCols;
      const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(len * kCols, 1));
      parallel_for(0, outer * blocks, grain, [&](int64_t b, int64_t e) {
        Acc acc[kCols];
        for (int64_t t = b; t < e; ++t) {
          const int64_t o = t / blocks, c0 = (t % blocks) * kCols;
          const int64_t nc = std::min(kCols, inner - c0);
          std::fill(acc, acc + nc, Acc(0));
          for (int64_t d = 0; d < len; ++d) {
            const int64_t off = (o * len + d) * inner + c0;
            for (int64_t j = 0; j < nc; ++j) {
              acc[j] += static_cast<Acc>(x[off + j]);
              y[off + j] = static_cast<T>(acc[j]);
            }
          }
        }
      });
    });
  });
}

}  // namespace xport::kernels::cpu
