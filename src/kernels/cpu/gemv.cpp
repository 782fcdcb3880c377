// PackedGemv's layout: the N outputs in groups of 4 (kGroup), K in chunks of 16 (kChunk), zero
// padded; group g holds, chunk by chunk, 4 rows of 16 values, w[g][c][r][j] = W[16c + j][4g + r].
// A thread takes a contiguous range of groups, so it reads one sequential stream, and computes
// each group's 4 outputs as dot products with x (no partial sums to combine).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemv.cpp"
// foreach_target.h must come first: it re-includes this file once per SIMD target.
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/parallel.h"

// Once, though foreach_target includes the file once per target.
#ifndef XPORT_KERNELS_CPU_GEMV_LAYOUT
#define XPORT_KERNELS_CPU_GEMV_LAYOUT
namespace xport::kernels::cpu::gemv_detail {
constexpr int64_t kGroup = 4;
constexpr int64_t kChunk = 16;
}  // namespace xport::kernels::cpu::gemv_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace xport::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using gemv_detail::kChunk;
using gemv_detail::kGroup;

// Groups [g0, g1) for `rows` rows of x (each k_padded floats, zero padded).
void GemvGroupsImpl(const float* packed, int64_t k_padded, int64_t g0, int64_t g1,
                    const float* x, int64_t rows, float* out, int64_t n) {
  const hn::CappedTag<float, kChunk> d;  // at most one chunk per vector
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t group_floats = kGroup * k_padded;
  for (int64_t g = g0; g < g1; ++g) {
    const float* w = packed + g * group_floats;
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * k_padded;
      auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
      const float* p = w;
      for (int64_t c = 0; c < k_padded; c += kChunk, p += kGroup * kChunk) {
        for (int64_t v = 0; v < kChunk; v += lanes) {
          const auto xv = hn::LoadU(d, xr + c + v);
          a0 = hn::MulAdd(hn::LoadU(d, p + v), xv, a0);
          a1 = hn::MulAdd(hn::LoadU(d, p + kChunk + v), xv, a1);
          a2 = hn::MulAdd(hn::LoadU(d, p + 2 * kChunk + v), xv, a2);
          a3 = hn::MulAdd(hn::LoadU(d, p + 3 * kChunk + v), xv, a3);
        }
      }
      const float sums[kGroup] = {
          hn::GetLane(hn::SumOfLanes(d, a0)), hn::GetLane(hn::SumOfLanes(d, a1)),
          hn::GetLane(hn::SumOfLanes(d, a2)), hn::GetLane(hn::SumOfLanes(d, a3))};
      const int64_t first = g * kGroup;
      const int64_t count = std::min(kGroup, n - first);
      std::memcpy(out + r * n + first, sums, static_cast<size_t>(count) * sizeof(float));
    }
  }
}

}  // namespace xport::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xport::kernels::cpu {

HWY_EXPORT(GemvGroupsImpl);

using gemv_detail::kChunk;
using gemv_detail::kGroup;

PackedGemv::PackedGemv(const Tensor& weight) {
  XPORT_CHECK(weight.dim() == 2 && weight.dtype() == DType::Float32 && !weight.is_fake(),
              Internal, "PackedGemv: expected a float32 weight [K, N] with data");
  k_ = weight.int_size(0);
  n_ = weight.int_size(1);
  k_padded_ = (k_ + kChunk - 1) / kChunk * kChunk;
  const int64_t groups = (n_ + kGroup - 1) / kGroup;
  packed_ = Storage::allocate(groups * kGroup * k_padded_ * static_cast<int64_t>(sizeof(float)));
  float* dst = static_cast<float*>(packed_->data());
  const float* src = static_cast<const float*>(weight.raw_data());
  const int64_t sk = weight.int_strides()[0], sn = weight.int_strides()[1];
  const int64_t k = k_, n = n_, k_padded = k_padded_;
  parallel_for(0, groups, 16, [&](int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; ++g) {
      float* w = dst + g * kGroup * k_padded;
      for (int64_t c = 0; c < k_padded; c += kChunk) {
        for (int64_t r = 0; r < kGroup; ++r) {
          const int64_t col = g * kGroup + r;
          for (int64_t j = 0; j < kChunk; ++j) {
            const int64_t row = c + j;
            *w++ = row < k && col < n ? src[row * sk + col * sn] : 0.0f;
          }
        }
      }
    }
  });
}

void PackedGemv::run(const float* x, int64_t rows, float* out) const {
  XPORT_CHECK(rows >= 1 && rows <= kMaxRows, Internal, "PackedGemv::run: ", rows,
              " rows; it takes 1 to ", kMaxRows);
  // The kernel reads whole chunks of x: a zero-padded copy (at most 4 rows).
  thread_local std::vector<float> padded;
  padded.assign(static_cast<size_t>(rows * k_padded_), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(padded.data() + r * k_padded_, x + r * k_, static_cast<size_t>(k_) * sizeof(float));
  }
  const float* packed = static_cast<const float*>(packed_->data());
  const float* xp = padded.data();
  const int64_t groups = (n_ + kGroup - 1) / kGroup;
  // About 64 KiB of weights per grain, so small matrices stay on one thread.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / (kGroup * k_padded_));
  parallel_for(0, groups, grain, [&](int64_t g0, int64_t g1) {
    XPORT_HWY_DISPATCH(GemvGroupsImpl)(packed, k_padded_, g0, g1, xp, rows, out, n_);
  });
}

}  // namespace xport::kernels::cpu
#endif  // HWY_ONCE
