// One weight row at a time, against every x row while it is in L1, with four accumulators;
// threads take contiguous runs of weight rows, so each reads its part of the weights once, front
// to back, as one stream (which the prefetchers serve at full speed; several interleaved rows
// read at a third of it).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/weight_only_linear.cpp"
// foreach_target.h must come first: it re-includes this file once per SIMD target.
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels/cpu/bf16_dot.h"
#include "kernels/cpu/bf16_matmul.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/onednn.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/weight_only_linear.h"

#ifndef XPORT_KERNELS_CPU_WEIGHT_ONLY_ARGS
#define XPORT_KERNELS_CPU_WEIGHT_ONLY_ARGS
namespace xport::kernels::cpu::weight_only_detail {
constexpr int64_t kPlaneWidth = 16;  // int4 values one shift and mask give: 16 32-bit words
constexpr int64_t kPlanes = 8;       // nibbles per word
constexpr int64_t kRun = kPlaneWidth * kPlanes;  // int4 values per packed run (64 bytes)
constexpr int64_t kPrefetchBytes = 4096;  // how far ahead of the multiply-adds weights are fetched
inline float bf16_to_float(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}
struct Args {
  const float* x;       // [rows, k]
  int64_t rows, k, n;
  const uint8_t* w;     // int8 [n, k] or packed int4 [n, k / 2]
  int64_t bits;         // 8, 4, or 16 (bfloat16 weights)
  const float* scales;  // [n, groups], or null (ones)
  const float* zeros;   // [n, groups] or null
  int64_t groups, group;
  const float* x_sums;  // [rows, groups]: each group's sum of x (the zero points' term)
  const float* bias;    // [n] or null
  float* out;           // [rows, n]
};
}  // namespace xport::kernels::cpu::weight_only_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace xport::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using weight_only_detail::Args;
using weight_only_detail::kPlanes;
using weight_only_detail::kPlaneWidth;
using weight_only_detail::kPrefetchBytes;
using weight_only_detail::kRun;

// Sum over [k0, k1) of x * w for weights one element each (int8, bfloat16): `widen(k)` gives the
// vector of weights from k as floats, `weight(k)` one of them. Four vectors apart into four
// accumulators (so the multiply-adds do not wait on each other), each cache line of weights
// fetched kPrefetchBytes ahead; the tail goes into lane 0 of the first.
template <class T, class D, class V, class Widen, class Weight>
HWY_INLINE void DotWide(D d, const float* x, const T* w, int64_t k0, int64_t k1,
                        const Widen& widen, const Weight& weight, V& s0, V& s1, V& s2, V& s3) {
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  V a0 = s0, a1 = s1, a2 = s2, a3 = s3;
  int64_t k = k0;
  for (; k + 4 * lanes <= k1; k += 4 * lanes) {
    const auto* ahead = reinterpret_cast<const char*>(w + k) + kPrefetchBytes;
    for (int64_t line = 0; line < 4 * lanes * static_cast<int64_t>(sizeof(T)); line += 64) {
      __builtin_prefetch(ahead + line);
    }
    a0 = hn::MulAdd(widen(k), hn::LoadU(d, x + k), a0);
    a1 = hn::MulAdd(widen(k + lanes), hn::LoadU(d, x + k + lanes), a1);
    a2 = hn::MulAdd(widen(k + 2 * lanes), hn::LoadU(d, x + k + 2 * lanes), a2);
    a3 = hn::MulAdd(widen(k + 3 * lanes), hn::LoadU(d, x + k + 3 * lanes), a3);
  }
  for (; k + lanes <= k1; k += lanes) a0 = hn::MulAdd(widen(k), hn::LoadU(d, x + k), a0);
  float tail = 0;
  for (; k < k1; ++k) tail += x[k] * weight(k);
  s0 = hn::Add(a0, hn::IfThenElseZero(hn::FirstN(d, 1), hn::Set(d, tail)));
  s1 = a1;
  s2 = a2;
  s3 = a3;
}

// int8 weights, converted.
template <class D, class V>
HWY_INLINE void DotInt8(D d, const float* x, const int8_t* w, int64_t k0, int64_t k1, V& s0,
                        V& s1, V& s2, V& s3) {
  const hn::Rebind<int8_t, D> d8;
  const hn::Rebind<int32_t, D> d32;
  DotWide(
      d, x, w, k0, k1,
      [&](int64_t k) { return hn::ConvertTo(d, hn::PromoteTo(d32, hn::LoadU(d8, w + k))); },
      [&](int64_t k) { return static_cast<float>(w[k]); }, s0, s1, s2, s3);
}

// bfloat16 weights, widened by a shift (bfloat16 is float32's upper half).
template <class D, class V>
HWY_INLINE void DotBf16(D d, const float* x, const uint16_t* w, int64_t k0, int64_t k1, V& s0,
                        V& s1, V& s2, V& s3) {
  const hn::Rebind<uint16_t, D> d16;
  const hn::Rebind<uint32_t, D> d32;
  DotWide(
      d, x, w, k0, k1,
      [&](int64_t k) {
        return hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(d32, hn::LoadU(d16, w + k))));
      },
      [&](int64_t k) { return weight_only_detail::bf16_to_float(w[k]); }, s0, s1, s2, s3);
}

// Packed int4 weights. A run of 128 values is 16 32-bit words; word i holds values i, i + 16,
// ..., i + 112 in its eight nibbles, so the 16 values of "plane" p are one shift away. Placed in
// the mantissa of 1.0f (one shift and one or-and), a nibble u becomes 1 + u / 16 with no
// conversion; the callers take 16 * sum - 16 * sum(x) as the sum of x * u.
template <class D>
struct Int4AsFloat {
  using DU = hn::Rebind<uint32_t, D>;
  D d;
  hn::Vec<DU> one = hn::Set(DU(), uint32_t{0x3F800000});       // 1.0f
  hn::Vec<DU> mantissa = hn::Set(DU(), uint32_t{0x00780000});  // bits 19 .. 22: u / 16
  // Nibbles already at bits 19 .. 22 (other bits anything) as floats 1 + u / 16.
  hn::Vec<D> operator()(hn::Vec<DU> at_19) const {
    return hn::BitCast(d, hn::OrAnd(one, at_19, mantissa));
  }
};

// Plane P's nibbles of a run's words, moved to bits 19 .. 22.
template <int P, class VU>
HWY_INLINE VU PlaneAt19(VU words) {
  if constexpr (4 * P <= 19) {
    return hn::ShiftLeft<19 - 4 * P>(words);
  } else {
    return hn::ShiftRight<4 * P - 19>(words);
  }
}

// f(std::integral_constant<int, p>) for the planes p of a run, in order (shifts by constants).
template <class F, int... P>
HWY_INLINE void ForEachPlane(const F& f, std::integer_sequence<int, P...>) {
  (f(std::integral_constant<int, P>{}), ...);
}
template <class F>
HWY_INLINE void ForEachPlane(const F& f) {
  ForEachPlane(f, std::make_integer_sequence<int, static_cast<int>(kPlanes)>{});
}

// Sum over [k0, k1) (multiples of 16) of x * (1 + u / 16), u = q + 8. Four planes at a time
// feed four accumulators.
template <class D, class V>
HWY_INLINE void DotInt4(D d, const float* x, const uint8_t* w, int64_t k0, int64_t k1, V& s0,
                        V& s1, V& s2, V& s3) {
  const hn::Rebind<uint32_t, D> du32;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const Int4AsFloat<D> as_float{d};
  const auto* words = reinterpret_cast<const uint32_t*>(w);
  const auto word_run = [&](int64_t j, int64_t h) {
    return hn::LoadU(du32, words + (j / kPlanes) * kPlaneWidth + h);
  };
  // Plane j (values 16j .. 16j + 15), lanes h .. h + lanes - 1 of it, any j.
  const auto plane = [&](int64_t j, int64_t h) {
    const auto nibble = hn::ShiftRightSame(word_run(j, h), static_cast<int>(4 * (j % kPlanes)));
    return as_float(hn::ShiftLeft<19>(nibble));
  };
  std::array<V, 4> a = {s0, s1, s2, s3};
  int64_t j = k0 / kPlaneWidth;
  const int64_t end = k1 / kPlaneWidth;
  // Planes up to a run's start one by one, then whole runs (each word loaded once, shifts by
  // constants), then the planes left.
  for (; j < end && j % kPlanes != 0; ++j) {
    for (int64_t h = 0; h < kPlaneWidth; h += lanes) {
      a[0] = hn::MulAdd(plane(j, h), hn::LoadU(d, x + j * kPlaneWidth + h), a[0]);
    }
  }
  for (; j + kPlanes <= end; j += kPlanes) {
    __builtin_prefetch(w + j * kPlaneWidth / 2 + kPrefetchBytes);
    const float* xr = x + j * kPlaneWidth;
    for (int64_t h = 0; h < kPlaneWidth; h += lanes) {
      const auto run = word_run(j, h);
      ForEachPlane([&](auto p) {
        constexpr int P = decltype(p)::value;
        a[P % 4] = hn::MulAdd(as_float(PlaneAt19<P>(run)), hn::LoadU(d, xr + P * kPlaneWidth + h),
                              a[P % 4]);
      });
    }
  }
  for (; j < end; ++j) {
    for (int64_t h = 0; h < kPlaneWidth; h += lanes) {
      a[0] = hn::MulAdd(plane(j, h), hn::LoadU(d, x + j * kPlaneWidth + h), a[0]);
    }
  }
  s0 = a[0];
  s1 = a[1];
  s2 = a[2];
  s3 = a[3];
}

// int4 weights against one x row (a decode step), two weight rows at a time: they share the
// loads of x, and their four accumulator chains (two a row, a run's eight planes alternating
// between them) keep the multiply-adds busy. Groups of whole runs (kPlaneScales false) scale
// each group's sums into the row's totals once; groups of 16, 32 or 64 values (torchao's default
// is 32) put each plane's 16 values in one group, whose scale multiplies the plane. Writes both
// rows' sums of x * (1 + u / 16) * 16 * scale, less their zero points' terms.
template <bool kPlaneScales, class D>
HWY_INLINE void Int4RowPair(D d, const Args& a, int64_t n, int64_t count, float* out) {
  using V = hn::Vec<D>;
  const hn::Rebind<uint32_t, D> du32;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const Int4AsFloat<D> as_float{d};
  const int64_t row_words = a.k / 8;
  const int64_t second = count > 1 ? 1 : 0;  // a lone row reads itself twice
  const auto* words0 = reinterpret_cast<const uint32_t*>(a.w) + n * row_words;
  const auto* words1 = words0 + second * row_words;
  const float* scales0 = a.scales + n * a.groups;
  const float* scales1 = scales0 + second * a.groups;
  // The values summed before a scale applies: a group, or (scales per plane) the whole row.
  const int64_t span = kPlaneScales ? a.k : a.group;
  // t[r][c]: row r's total, accumulator chain c (a run's planes alternate between two).
  std::array<std::array<V, 2>, 2> t = {{{hn::Zero(d), hn::Zero(d)}, {hn::Zero(d), hn::Zero(d)}}};
  for (int64_t k0 = 0; k0 < a.k; k0 += span) {
    std::array<std::array<V, 2>, 2> acc = {
        {{hn::Zero(d), hn::Zero(d)}, {hn::Zero(d), hn::Zero(d)}}};
    for (int64_t k = k0; k < k0 + span; k += kRun) {
      const uint32_t* r0 = words0 + k / 8;
      const uint32_t* r1 = words1 + k / 8;
      __builtin_prefetch(reinterpret_cast<const char*>(r0) + kPrefetchBytes);
      __builtin_prefetch(reinterpret_cast<const char*>(r1) + kPrefetchBytes);
      for (int64_t h = 0; h < kPlaneWidth; h += lanes) {
        const auto w0 = hn::LoadU(du32, r0 + h);
        const auto w1 = hn::LoadU(du32, r1 + h);
        const float* xr = a.x + k + h;
        ForEachPlane([&](auto p) {
          constexpr int P = decltype(p)::value;
          const V xp = hn::LoadU(d, xr + P * kPlaneWidth);
          V v0 = as_float(PlaneAt19<P>(w0)), v1 = as_float(PlaneAt19<P>(w1));
          if constexpr (kPlaneScales) {
            const int64_t g = (k + P * kPlaneWidth) / a.group;
            v0 = hn::Mul(v0, hn::Set(d, 16.0f * scales0[g]));
            v1 = hn::Mul(v1, hn::Set(d, 16.0f * scales1[g]));
          }
          acc[0][P % 2] = hn::MulAdd(v0, xp, acc[0][P % 2]);
          acc[1][P % 2] = hn::MulAdd(v1, xp, acc[1][P % 2]);
        });
      }
    }
    const std::array<V, 2> scale = {
        hn::Set(d, kPlaneScales ? 1.0f : 16.0f * scales0[k0 / a.group]),
        hn::Set(d, kPlaneScales ? 1.0f : 16.0f * scales1[k0 / a.group])};
    for (int r = 0; r < 2; ++r) {
      for (int c = 0; c < 2; ++c) t[r][c] = hn::MulAdd(scale[r], acc[r][c], t[r][c]);
    }
  }
  for (int64_t i = 0; i < count; ++i) {
    // The zero points' term: each group's (zero + 24) * scale * sum(x).
    float correction = 0;
    for (int64_t g = 0; g < a.groups; ++g) {
      const float zero = (a.zeros != nullptr ? a.zeros[(n + i) * a.groups + g] : 0.0f) + 24.0f;
      correction += a.scales[(n + i) * a.groups + g] * zero * a.x_sums[g];
    }
    const V total = hn::Add(t[i][0], t[i][1]);
    out[i] = hn::GetLane(hn::SumOfLanes(d, total)) - correction +
             (a.bias != nullptr ? a.bias[n + i] : 0.0f);
  }
}

// int4 against one x row, two weight rows at a time (Int4RowPair), for groups of whole runs or
// of a part of one; else false.
bool Int4Rows(const Args& a, int64_t n0, int64_t n1) {
  const bool whole_runs = a.group % kRun == 0;
  const bool part_runs = a.group % kPlaneWidth == 0 && kRun % a.group == 0;
  if (a.bits != 4 || a.rows != 1 || a.scales == nullptr || !(whole_runs || part_runs)) {
    return false;
  }
  const hn::CappedTag<float, kPlaneWidth> d;
  for (int64_t n = n0; n < n1; n += 2) {
    const int64_t count = std::min<int64_t>(2, n1 - n);
    float sums[2];
    if (whole_runs) {
      Int4RowPair<false>(d, a, n, count, sums);
    } else {
      Int4RowPair<true>(d, a, n, count, sums);
    }
    for (int64_t i = 0; i < count; ++i) a.out[n + i] = sums[i];
  }
  return true;
}

// Weight rows [n0, n1), each against every row of x while it is in L1: a thread reads its
// rows front to back, one stream.
void WeightOnlyRowsImpl(const Args& a, int64_t n0, int64_t n1) {
  if (Int4Rows(a, n0, n1)) return;
  // An int4 plane is 16 values: at most 16 lanes.
  const hn::ScalableTag<float> d_int8;
  const hn::CappedTag<float, kPlaneWidth> d_int4;
  const int64_t row_bytes = a.k * a.bits / 8;
  // int8 and bfloat16 sum x * w. int4 sums x * (1 + (q + 8) / 16): 16 times that, less 24 x, is
  // x * q.
  const float factor = a.bits == 4 ? 16.0f : 1.0f;
  const float zp_shift = a.bits == 4 ? 24.0f : 0.0f;
  for (int64_t n = n0; n < n1; ++n) {
    const uint8_t* w = a.w + n * row_bytes;
    const float* scales = a.scales != nullptr ? a.scales + n * a.groups : nullptr;
    const float* zeros = a.zeros != nullptr ? a.zeros + n * a.groups : nullptr;
    for (int64_t r = 0; r < a.rows; ++r) {
      const float* x = a.x + r * a.k;
      float correction = 0;
      const auto run = [&](auto d) {
        using V = hn::Vec<decltype(d)>;
        V total = hn::Zero(d);
        for (int64_t g = 0; g < a.groups; ++g) {
          V a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
          const int64_t k0 = g * a.group, k1 = k0 + a.group;
          if (a.bits == 8) {
            DotInt8(d, x, reinterpret_cast<const int8_t*>(w), k0, k1, a0, a1, a2, a3);
          } else if (a.bits == 16) {
            DotBf16(d, x, reinterpret_cast<const uint16_t*>(w), k0, k1, a0, a1, a2, a3);
          } else {
            DotInt4(d, x, w, k0, k1, a0, a1, a2, a3);
          }
          const V sum = hn::Add(hn::Add(a0, a1), hn::Add(a2, a3));
          const float scale = scales != nullptr ? scales[g] : 1.0f;
          total = hn::MulAdd(hn::Set(d, factor * scale), sum, total);
          const float zero = (zeros != nullptr ? zeros[g] : 0.0f) + zp_shift;
          correction += scale * zero * a.x_sums[r * a.groups + g];
        }
        return hn::GetLane(hn::SumOfLanes(d, total));
      };
      const float sum = a.bits == 4 ? run(d_int4) : run(d_int8);
      a.out[r * a.n + n] = sum - correction + (a.bias != nullptr ? a.bias[n] : 0.0f);
    }
  }
}

}  // namespace xport::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xport::kernels::cpu {

HWY_EXPORT(WeightOnlyRowsImpl);

using weight_only_detail::kPlanes;
using weight_only_detail::kPlaneWidth;
using weight_only_detail::kRun;

Tensor pack_int4(const Tensor& values) {
  XPORT_CHECK(values.dim() == 2 && values.dtype() == DType::Int8 &&
                  values.int_size(1) % kRun == 0,
              InvalidInput, "pack_int4: takes int8 [N, K] with K a multiple of ", kRun,
              ", got ", dtype_name(values.dtype()), " of ", values.dim(), " dims");
  const Tensor v = contiguous_as(values, DType::Int8);
  const int64_t n = v.int_size(0), k = v.int_size(1);
  Tensor packed = Tensor::empty_contiguous({n, k / 2}, DType::UInt8);
  const int8_t* src = v.data<int8_t>();
  auto* words = reinterpret_cast<uint32_t*>(packed.mutable_data<uint8_t>());
  for (int64_t run = 0; run < n * k / kRun; ++run) {
    for (int64_t i = 0; i < kPlaneWidth; ++i) {
      uint32_t word = 0;
      for (int64_t p = 0; p < kPlanes; ++p) {
        const int value = src[run * kRun + p * kPlaneWidth + i] + 8;
        XPORT_CHECK(value >= 0 && value < 16, InvalidInput, "pack_int4: a value outside [-8, 7]");
        word |= static_cast<uint32_t>(value) << (4 * p);
      }
      words[run * kPlaneWidth + i] = word;  // little-endian bytes, as x86 stores them
    }
  }
  return packed;
}

namespace {

constexpr int64_t kGemvRows = 4;     // more rows than this: dequantized blocks and sgemm
constexpr int64_t kBlockRows = 64;   // weight rows dequantized at a time

// Weight rows [n0, n0 + rows) as float32 [rows, k]: (q - zero) * scale, as the dequantize ops
// compute them.
void dequantize_rows(const weight_only_detail::Args& a, int64_t n0, int64_t rows, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = n0 + r;
    float* y = out + r * a.k;
    if (a.bits == 8) {
      const auto* q = reinterpret_cast<const int8_t*>(a.w) + n * a.k;
      for (int64_t i = 0; i < a.k; ++i) y[i] = static_cast<float>(q[i]);
    } else if (a.bits == 16) {
      const auto* q = reinterpret_cast<const uint16_t*>(a.w) + n * a.k;
      for (int64_t i = 0; i < a.k; ++i) y[i] = weight_only_detail::bf16_to_float(q[i]);
    } else {
      const auto* words = reinterpret_cast<const uint32_t*>(a.w + n * a.k / 2);
      for (int64_t run = 0; run < a.k / kRun; ++run) {
        for (int64_t i = 0; i < kPlaneWidth; ++i) {
          const uint32_t word = words[run * kPlaneWidth + i];
          for (int64_t p = 0; p < kPlanes; ++p) {
            y[run * kRun + p * kPlaneWidth + i] =
                static_cast<float>(static_cast<int>((word >> (4 * p)) & 0xF) - 8);
          }
        }
      }
    }
    for (int64_t g = 0; g < a.groups && a.scales != nullptr; ++g) {
      const float s = a.scales[n * a.groups + g];
      const float zero = a.zeros != nullptr ? a.zeros[n * a.groups + g] : 0.0f;
      for (int64_t i = g * a.group; i < (g + 1) * a.group; ++i) y[i] = (y[i] - zero) * s;
    }
  }
}

// Many rows (a prompt, a batch): each block of weight rows dequantized once into a buffer of
// the thread's and multiplied by oneDNN's sgemm, so the conversion is paid once, not per row.
void run_as_gemm(const weight_only_detail::Args& a) {
  const int64_t blocks = (a.n + kBlockRows - 1) / kBlockRows;
  parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
    thread_local std::vector<float> block;
    block.resize(static_cast<size_t>(kBlockRows * a.k));
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t n0 = b * kBlockRows, rows = std::min(kBlockRows, a.n - n0);
      dequantize_rows(a, n0, rows, block.data());
      const dnnl_status_t status = onednn_sgemm('N', 'T', a.rows, rows, a.k, 1.0f, a.x, a.k,
                                                block.data(), a.k, 0.0f, a.out + n0, a.n);
      XPORT_CHECK(status == dnnl_success, Internal, "weight_only_linear: sgemm failed (",
                  status, ")");
      if (a.bias == nullptr) continue;
      for (int64_t r = 0; r < a.rows; ++r) {
        for (int64_t j = 0; j < rows; ++j) a.out[r * a.n + n0 + j] += a.bias[n0 + j];
      }
    }
  });
}

// Weight rows per task of the few-rows kernels: about 32 KiB of weights.
int64_t gemv_grain(const weight_only_detail::Args& a) {
  const int64_t row_bytes = std::max<int64_t>(1, a.k * a.bits / 8);
  return std::max<int64_t>(1, (int64_t{1} << 15) / row_bytes);
}

// A few rows (a decoder's step): each weight converted in registers, read once per row.
void run_rows(weight_only_detail::Args a) {
  // Each group's sum of x: the zero points' part of the product.
  thread_local std::vector<float> x_sums;
  x_sums.assign(static_cast<size_t>(a.rows * a.groups), 0.0f);
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t g = 0; g < a.groups; ++g) {
      float s = 0;
      for (int64_t i = g * a.group; i < (g + 1) * a.group; ++i) s += a.x[r * a.k + i];
      x_sums[static_cast<size_t>(r * a.groups + g)] = s;
    }
  }
  a.x_sums = x_sums.data();
  parallel_for(0, a.n, gemv_grain(a), [&](int64_t n0, int64_t n1) {
    XPORT_HWY_DISPATCH(WeightOnlyRowsImpl)(a, n0, n1);
  });
}

// torch.autocast's bfloat16 linear layer: x rounded to bfloat16, the products summed in
// float32 with the bias, the result rounded to bfloat16 (and held in float32). With AVX512-BF16
// the few-rows case takes vdpbf16ps on the rounded x; otherwise the float32 kernels run on it,
// whose products of bfloat16 values are the same (exact). Many rows take oneDNN's bfloat16
// matmul where it has a fast kernel (bf16_matmul.h).
void run_in_bf16(weight_only_detail::Args a) {
  const int64_t count = a.rows * a.k;
  thread_local std::vector<float> rounded;
  thread_local std::vector<uint16_t> rounded_bits;
  rounded.resize(static_cast<size_t>(count));
  rounded_bits.resize(static_cast<size_t>(count));
  // Pointers, not the names: in the workers, those name their own (empty) vectors.
  float* xf = rounded.data();
  uint16_t* x = rounded_bits.data();
  const float* from = a.x;
  parallel_for(0, count, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      x[i] = BFloat16::from_float(from[i]);
      xf[i] = BFloat16::to_float(x[i]);
    }
  });
  a.x = xf;
  if (a.rows > kGemvRows) {
    if (!bf16_matmul(x, a.rows, reinterpret_cast<const uint16_t*>(a.w), a.k, a.n, a.bias,
                     a.out)) {
      run_as_gemm(a);
    }
  } else if (has_bf16_dot()) {
    const auto* w = reinterpret_cast<const uint16_t*>(a.w);
    parallel_for(0, a.n, gemv_grain(a), [&](int64_t n0, int64_t n1) {
      bf16_dot_rows(x, a.rows, w, a.k, a.bias, a.n, n0, n1, a.out);
    });
  } else {
    run_rows(a);
  }
  parallel_for(0, a.rows * a.n, 1 << 14, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) a.out[i] = BFloat16::to_float(BFloat16::from_float(a.out[i]));
  });
}

}  // namespace

void weight_only_linear_out(const Tensor& input, const Tensor& weight, int64_t bits,
                            const Tensor& scales, const Tensor& zero_points, int64_t group_size,
                            const Tensor& bias, const Tensor& out, bool bf16_compute) {
  const int64_t rows = input.int_size(0), k = input.int_size(1), n = out.int_size(1);
  weight_only_detail::Args args{
      .x = input.data<float>(), .rows = rows, .k = k, .n = n,
      .w = static_cast<const uint8_t*>(weight.raw_data()), .bits = bits,
      .scales = scales.defined() ? scales.data<float>() : nullptr,
      .zeros = zero_points.defined() ? zero_points.data<float>() : nullptr,
      .groups = k / group_size, .group = group_size, .x_sums = nullptr,
      .bias = bias.defined() ? bias.data<float>() : nullptr,
      .out = out.mutable_data<float>()};
  if (bf16_compute) {
    XPORT_CHECK(bits == 16 && !scales.defined(), InvalidInput,
                "weight_only_linear: bfloat16 compute takes bfloat16 weights (bits 16)");
    run_in_bf16(args);
  } else if (rows > kGemvRows) {
    run_as_gemm(args);
  } else {
    run_rows(args);
  }
}

}  // namespace xport::kernels::cpu
#endif  // HWY_ONCE
