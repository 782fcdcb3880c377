// Highway kernels, compiled once per SIMD target (AVX-512, AVX2, and a portable fallback) and
// chosen at run time. Kept to the hot elementwise ops and row kernels.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/vec_math.cpp"
// foreach_target.h must come first: it re-includes this file once per SIMD target.
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include <cmath>
#include <limits>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/vec_math.h"

HWY_BEFORE_NAMESPACE();
namespace xport::kernels::cpu::vec::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Applies f to full vectors, then to the tail through a padded stack buffer.
template <class F>
HWY_INLINE void map1(const float* x, float* y, int64_t n, const F& f) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(f(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < n) {
    HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)] = {};
    for (int64_t j = 0; j < n - i; ++j) buf[j] = x[i + j];
    hn::Store(f(d, hn::Load(d, buf)), d, buf);
    for (int64_t j = 0; j < n - i; ++j) y[i + j] = buf[j];
  }
}

template <class F>
HWY_INLINE void map2(const float* a, const float* b, float* y, int64_t n, const F& f) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(f(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, y + i);
  for (; i < n; ++i) {
    HWY_ALIGN float ba[HWY_MAX_BYTES / sizeof(float)] = {};
    HWY_ALIGN float bb[HWY_MAX_BYTES / sizeof(float)] = {};
    ba[0] = a[i];
    bb[0] = b[i];
    hn::Store(f(d, hn::Load(d, ba), hn::Load(d, bb)), d, ba);
    y[i] = ba[0];
  }
}

// exp with IEEE behaviour at the edges (Highway's Exp is valid on [-FLT_MAX, 104]).
HWY_INLINE V ExpSafe(D d, V x) {
  const V clamped = hn::Min(x, hn::Set(d, 88.8f));
  V r = hn::Exp(d, clamped);
  r = hn::IfThenElse(hn::Gt(x, hn::Set(d, 88.72283935546875f)),
                     hn::Set(d, std::numeric_limits<float>::infinity()), r);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

HWY_INLINE V LogSafe(D d, V x) {
  V r = hn::Log(d, x);
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  r = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(inf), r);
  r = hn::IfThenElse(hn::Eq(x, inf), inf, r);
  const V nan = hn::Set(d, std::numeric_limits<float>::quiet_NaN());
  return hn::IfThenElse(hn::Or(hn::Lt(x, hn::Zero(d)), hn::IsNaN(x)), nan, r);
}

// Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), the approximation PyTorch vectorizes too.
HWY_INLINE V Erf(D d, V x) {
  const V ax = hn::Abs(x);
  const V t = hn::Div(hn::Set(d, 1.0f), hn::MulAdd(hn::Set(d, 0.3275911f), ax, hn::Set(d, 1.0f)));
  V p = hn::Set(d, 1.061405429f);
  p = hn::MulAdd(p, t, hn::Set(d, -1.453152027f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.421413741f));
  p = hn::MulAdd(p, t, hn::Set(d, -0.284496736f));
  p = hn::MulAdd(p, t, hn::Set(d, 0.254829592f));
  p = hn::Mul(p, t);
  const V e = ExpSafe(d, hn::Neg(hn::Mul(ax, ax)));
  const V r = hn::NegMulAdd(p, e, hn::Set(d, 1.0f));  // 1 - p*e
  return hn::IfThenElse(hn::IsNaN(x), x, hn::CopySign(r, x));
}

HWY_INLINE V Sigmoid(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  return hn::Div(one, hn::Add(one, ExpSafe(d, hn::Neg(x))));
}

void ExpImpl(const float* x, float* y, int64_t n) { map1(x, y, n, ExpSafe); }
void LogImpl(const float* x, float* y, int64_t n) { map1(x, y, n, LogSafe); }
void TanhImpl(const float* x, float* y, int64_t n) {
  map1(x, y, n, [](D d, V v) {
    // Highway's Tanh saturates correctly; keep NaN as NaN.
    return hn::IfThenElse(hn::IsNaN(v), v, hn::Tanh(d, v));
  });
}
void SigmoidImpl(const float* x, float* y, int64_t n) { map1(x, y, n, Sigmoid); }
void ErfImpl(const float* x, float* y, int64_t n) { map1(x, y, n, Erf); }
void GeluErfImpl(const float* x, float* y, int64_t n) {
  map1(x, y, n, [](D d, V v) {
    const V cdf = hn::MulAdd(hn::Set(d, 0.5f), Erf(d, hn::Mul(v, hn::Set(d, 0.70710678118654752f))),
                             hn::Set(d, 0.5f));
    return hn::Mul(v, cdf);
  });
}
void GeluTanhImpl(const float* x, float* y, int64_t n) {
  map1(x, y, n, [](D d, V v) {
    const V inner = hn::Mul(hn::Set(d, 0.7978845608028654f),
                            hn::MulAdd(hn::Mul(hn::Set(d, 0.044715f), hn::Mul(v, v)), v, v));
    const V t = hn::Tanh(d, inner);
    return hn::Mul(hn::Mul(hn::Set(d, 0.5f), v), hn::Add(hn::Set(d, 1.0f), t));
  });
}
void SiluImpl(const float* x, float* y, int64_t n) {
  map1(x, y, n, [](D d, V v) { return hn::Mul(v, Sigmoid(d, v)); });
}
void ReluImpl(const float* x, float* y, int64_t n) {
  map1(x, y, n, [](D d, V v) {
    // NaN stays NaN, as in PyTorch.
    return hn::IfThenElse(hn::IsNaN(v), v, hn::Max(v, hn::Zero(d)));
  });
}

void AffineRoundImpl(const float* x, float* y, int64_t n, float scale, float offset, float lo,
                     float hi) {
  map1(x, y, n, [=](D d, V v) {
    const V r = hn::Add(hn::Round(hn::Mul(v, hn::Set(d, scale))), hn::Set(d, offset));
    return hn::IfThenElse(hn::IsNaN(r), r, hn::Min(hn::Max(r, hn::Set(d, lo)), hn::Set(d, hi)));
  });
}

void AddImpl(const float* a, const float* b, float* y, int64_t n, float alpha) {
  if (alpha == 1.0f) {
    map2(a, b, y, n, [](D, V u, V v) { return hn::Add(u, v); });
  } else {
    map2(a, b, y, n, [alpha](D d, V u, V v) { return hn::MulAdd(v, hn::Set(d, alpha), u); });
  }
}
void MulImpl(const float* a, const float* b, float* y, int64_t n) {
  map2(a, b, y, n, [](D, V u, V v) { return hn::Mul(u, v); });
}
void DivImpl(const float* a, const float* b, float* y, int64_t n) {
  map2(a, b, y, n, [](D, V u, V v) { return hn::Div(u, v); });
}

float SumImpl(const float* x, int64_t n) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  V acc0 = hn::Zero(d), acc1 = hn::Zero(d), acc2 = hn::Zero(d), acc3 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    acc0 = hn::Add(acc0, hn::LoadU(d, x + i));
    acc1 = hn::Add(acc1, hn::LoadU(d, x + i + N));
    acc2 = hn::Add(acc2, hn::LoadU(d, x + i + 2 * N));
    acc3 = hn::Add(acc3, hn::LoadU(d, x + i + 3 * N));
  }
  for (; i + N <= n; i += N) acc0 = hn::Add(acc0, hn::LoadU(d, x + i));
  float s = hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(acc0, acc1), hn::Add(acc2, acc3))));
  for (; i < n; ++i) s += x[i];
  return s;
}

float MaxImpl(const float* x, int64_t n) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  float m = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  if (n >= N) {
    V acc = hn::LoadU(d, x);
    for (i = N; i + N <= n; i += N) acc = hn::Max(acc, hn::LoadU(d, x + i));
    m = hn::GetLane(hn::MaxOfLanes(d, acc));
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

void SoftmaxRowsImpl(const float* x, float* y, int64_t rows, int64_t cols, bool log) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    const float m = MaxImpl(xr, cols);
    const V vm = hn::Set(d, m);
    // y = exp(x - max), summed on the way.
    V acc = hn::Zero(d);
    int64_t i = 0;
    for (; i + N <= cols; i += N) {
      const V e = ExpSafe(d, hn::Sub(hn::LoadU(d, xr + i), vm));
      acc = hn::Add(acc, e);
      if (!log) hn::StoreU(e, d, yr + i);
    }
    float s = hn::GetLane(hn::SumOfLanes(d, acc));
    for (; i < cols; ++i) {
      const float e = std::exp(xr[i] - m);
      s += e;
      if (!log) yr[i] = e;
    }
    if (log) {
      const V shift = hn::Set(d, m + std::log(s));
      map1(xr, yr, cols, [shift](D, V v) { return hn::Sub(v, shift); });
    } else {
      const V scale = hn::Set(d, 1.0f / s);
      map1(yr, yr, cols, [scale](D, V v) { return hn::Mul(v, scale); });
    }
  }
}

void LayerNormRowsImpl(const float* x, const float* w, const float* b, float* y, float* mean,
                       float* rstd, int64_t rows, int64_t cols, float eps) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    const float mu = SumImpl(xr, cols) / static_cast<float>(cols);
    const V vmu = hn::Set(d, mu);
    V acc = hn::Zero(d);
    int64_t i = 0;
    for (; i + N <= cols; i += N) {
      const V c = hn::Sub(hn::LoadU(d, xr + i), vmu);
      acc = hn::MulAdd(c, c, acc);
    }
    float var = hn::GetLane(hn::SumOfLanes(d, acc));
    for (; i < cols; ++i) var += (xr[i] - mu) * (xr[i] - mu);
    var /= static_cast<float>(cols);
    const float rs = 1.0f / std::sqrt(var + eps);
    if (mean) mean[r] = mu;
    if (rstd) rstd[r] = rs;
    const V vrs = hn::Set(d, rs);
    i = 0;
    for (; i + N <= cols; i += N) {
      V v = hn::Mul(hn::Sub(hn::LoadU(d, xr + i), vmu), vrs);
      if (w) v = hn::Mul(v, hn::LoadU(d, w + i));
      if (b) v = hn::Add(v, hn::LoadU(d, b + i));
      hn::StoreU(v, d, yr + i);
    }
    for (; i < cols; ++i) {
      float v = (xr[i] - mu) * rs;
      if (w) v *= w[i];
      if (b) v += b[i];
      yr[i] = v;
    }
  }
}

// max (kMax) or min of n floats; NaN when any value is NaN, as PyTorch's amax/amin.
template <bool kMax>
HWY_INLINE float ExtremumNaN(const float* x, int64_t n) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const float init =
      kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  V a0 = hn::Set(d, init), a1 = a0;
  auto nan = hn::FirstN(d, 0);
  const auto pick = [](V a, V b) {
    if constexpr (kMax)
      return hn::Max(a, b);
    else
      return hn::Min(a, b);
  };
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const V v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + N);
    nan = hn::Or(nan, hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)));
    a0 = pick(a0, v0);
    a1 = pick(a1, v1);
  }
  for (; i + N <= n; i += N) {
    const V v = hn::LoadU(d, x + i);
    nan = hn::Or(nan, hn::IsNaN(v));
    a0 = pick(a0, v);
  }
  const V a = pick(a0, a1);
  float r = hn::GetLane(kMax ? hn::MaxOfLanes(d, a) : hn::MinOfLanes(d, a));
  bool has_nan = !hn::AllFalse(d, nan);
  for (; i < n; ++i) {
    has_nan = has_nan || x[i] != x[i];
    r = kMax ? (x[i] > r ? x[i] : r) : (x[i] < r ? x[i] : r);
  }
  return has_nan ? std::numeric_limits<float>::quiet_NaN() : r;
}
float AmaxImpl(const float* x, int64_t n) { return ExtremumNaN<true>(x, n); }
float AminImpl(const float* x, int64_t n) { return ExtremumNaN<false>(x, n); }

// sum of n floats with each value added in double: the error does not grow with n.
double SumF64Impl(const float* x, int64_t n) {
  const hn::Half<D> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  const int64_t H = static_cast<int64_t>(hn::Lanes(dh));
  auto a0 = hn::Zero(dd), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 4 * H <= n; i += 4 * H) {
    a0 = hn::Add(a0, hn::PromoteTo(dd, hn::LoadU(dh, x + i)));
    a1 = hn::Add(a1, hn::PromoteTo(dd, hn::LoadU(dh, x + i + H)));
    a2 = hn::Add(a2, hn::PromoteTo(dd, hn::LoadU(dh, x + i + 2 * H)));
    a3 = hn::Add(a3, hn::PromoteTo(dd, hn::LoadU(dh, x + i + 3 * H)));
  }
  double s = hn::GetLane(hn::SumOfLanes(dd, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3))));
  for (; i < n; ++i) s += x[i];
  return s;
}

// sum of exp(x - shift), for logsumexp.
float SumExpImpl(const float* x, int64_t n, float shift) {
  const D d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const V vs = hn::Set(d, shift);
  V a0 = hn::Zero(d), a1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    a0 = hn::Add(a0, ExpSafe(d, hn::Sub(hn::LoadU(d, x + i), vs)));
    a1 = hn::Add(a1, ExpSafe(d, hn::Sub(hn::LoadU(d, x + i + N), vs)));
  }
  float s = hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1)));
  for (; i < n; ++i) s += std::exp(x[i] - shift);
  return s;
}

// The target this copy was compiled for: what the dispatch chose.
int64_t TargetImpl() { return HWY_TARGET; }

}  // namespace xport::kernels::cpu::vec::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xport::kernels::cpu::vec {

HWY_EXPORT(ExpImpl);
HWY_EXPORT(LogImpl);
HWY_EXPORT(TanhImpl);
HWY_EXPORT(SigmoidImpl);
HWY_EXPORT(ErfImpl);
HWY_EXPORT(GeluErfImpl);
HWY_EXPORT(GeluTanhImpl);
HWY_EXPORT(SiluImpl);
HWY_EXPORT(ReluImpl);
HWY_EXPORT(AffineRoundImpl);
HWY_EXPORT(AddImpl);
HWY_EXPORT(MulImpl);
HWY_EXPORT(DivImpl);
HWY_EXPORT(SumImpl);
HWY_EXPORT(MaxImpl);
HWY_EXPORT(SoftmaxRowsImpl);
HWY_EXPORT(LayerNormRowsImpl);
HWY_EXPORT(AmaxImpl);
HWY_EXPORT(AminImpl);
HWY_EXPORT(SumExpImpl);
HWY_EXPORT(SumF64Impl);
HWY_EXPORT(TargetImpl);

std::string dispatched_target() { return hwy::TargetName(XPORT_HWY_DISPATCH(TargetImpl)()); }

void exp(const float* x, float* y, int64_t n) { XPORT_HWY_DISPATCH(ExpImpl)(x, y, n); }
void log(const float* x, float* y, int64_t n) { XPORT_HWY_DISPATCH(LogImpl)(x, y, n); }
void tanh(const float* x, float* y, int64_t n) { XPORT_HWY_DISPATCH(TanhImpl)(x, y, n); }
void sigmoid(const float* x, float* y, int64_t n) { XPORT_HWY_DISPATCH(SigmoidImpl)(x, y, n); }
void erf(const float* x, float* y, int64_t n) { XPORT_HWY_DISPATCH(ErfImpl)(x, y, n); }
void gelu_erf(const float* x, float* y, int64_t n) { XPORT_HWY_DISPATCH(GeluErfImpl)(x, y, n); }
void gelu_tanh(const float* x, float* y, int64_t n) { XPORT_HWY_DISPATCH(GeluTanhImpl)(x, y, n); }
void silu(const float* x, float* y, int64_t n) { XPORT_HWY_DISPATCH(SiluImpl)(x, y, n); }
void relu(const float* x, float* y, int64_t n) { XPORT_HWY_DISPATCH(ReluImpl)(x, y, n); }
void affine_round(const float* x, float* y, int64_t n, float scale, float offset, float lo,
                  float hi) {
  XPORT_HWY_DISPATCH(AffineRoundImpl)(x, y, n, scale, offset, lo, hi);
}
void add(const float* a, const float* b, float* y, int64_t n, float alpha) {
  XPORT_HWY_DISPATCH(AddImpl)(a, b, y, n, alpha);
}
void mul(const float* a, const float* b, float* y, int64_t n) {
  XPORT_HWY_DISPATCH(MulImpl)(a, b, y, n);
}
void div(const float* a, const float* b, float* y, int64_t n) {
  XPORT_HWY_DISPATCH(DivImpl)(a, b, y, n);
}
float sum(const float* x, int64_t n) { return XPORT_HWY_DISPATCH(SumImpl)(x, n); }
float max(const float* x, int64_t n) { return XPORT_HWY_DISPATCH(MaxImpl)(x, n); }
void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols, bool log) {
  XPORT_HWY_DISPATCH(SoftmaxRowsImpl)(x, y, rows, cols, log);
}
void layer_norm_rows(const float* x, const float* w, const float* b, float* y, float* mean,
                     float* rstd, int64_t rows, int64_t cols, float eps) {
  XPORT_HWY_DISPATCH(LayerNormRowsImpl)(x, w, b, y, mean, rstd, rows, cols, eps);
}

float amax(const float* x, int64_t n) { return XPORT_HWY_DISPATCH(AmaxImpl)(x, n); }
float amin(const float* x, int64_t n) { return XPORT_HWY_DISPATCH(AminImpl)(x, n); }
float sum_exp(const float* x, int64_t n, float shift) {
  return XPORT_HWY_DISPATCH(SumExpImpl)(x, n, shift);
}
double sum_f64(const float* x, int64_t n) { return XPORT_HWY_DISPATCH(SumF64Impl)(x, n); }

}  // namespace xport::kernels::cpu::vec
#endif  // HWY_ONCE
