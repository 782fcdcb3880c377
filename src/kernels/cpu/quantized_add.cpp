// Highway's vectors, one target per instruction set: the integers widened to float32, the
// three ops' arithmetic lane by lane, rounded, narrowed back to 8 bits.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/quantized_add.cpp"
// foreach_target.h must come first: it re-includes this file once per SIMD target.
// clang-format off
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// clang-format on

#include <cmath>
#include <cstdint>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/quantized_add.h"
#include "xport/core/error.h"

#ifndef XPORT_KERNELS_CPU_QUANTIZED_ADD_ARGS
#define XPORT_KERNELS_CPU_QUANTIZED_ADD_ARGS
namespace xport::kernels::cpu::quantized_add_detail {
// One call's operands as float32 constants, and which of the three are int8 (else uint8).
struct Args {
  const void* a;
  const void* b;
  void* q;
  bool a_signed, b_signed, q_signed;
  float a_zero_point, a_scale, b_zero_point, b_scale;
  float inv_scale, zero_point, lo, hi;  // the quantize: float32(1 / scale), its range
  bool relu;
};
}  // namespace xport::kernels::cpu::quantized_add_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace xport::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using quantized_add_detail::Args;

// The sum of values [begin, end) with the C++ types of the operands and result. Each step is
// one float32 operation, as the dequantize, add, relu and quantize ops compute (no fused
// multiply-add), so every lane gives those ops' result; the tail takes the same steps in scalar.
template <class A, class B, class Q>
void add_range(const Args& p, int64_t begin, int64_t end) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<int32_t, decltype(d)> di;
  const hn::Rebind<A, decltype(d)> da;
  const hn::Rebind<B, decltype(d)> db;
  const hn::Rebind<Q, decltype(d)> dq;
  const auto* a = static_cast<const A*>(p.a);
  const auto* b = static_cast<const B*>(p.b);
  auto* q = static_cast<Q*>(p.q);
  const auto za = hn::Set(d, p.a_zero_point), sa = hn::Set(d, p.a_scale);
  const auto zb = hn::Set(d, p.b_zero_point), sb = hn::Set(d, p.b_scale);
  const auto inv = hn::Set(d, p.inv_scale), zq = hn::Set(d, p.zero_point);
  const auto lo = hn::Set(d, p.lo), hi = hn::Set(d, p.hi), zero = hn::Zero(d);
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = begin;
  for (; i + lanes <= end; i += lanes) {
    const auto x = hn::Mul(hn::Sub(hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(da, a + i))), za),
                           sa);
    const auto y = hn::Mul(hn::Sub(hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(db, b + i))), zb),
                           sb);
    auto s = hn::Add(x, y);
    if (p.relu) s = hn::Max(s, zero);
    const auto r = hn::Min(hn::Max(hn::Add(hn::Round(hn::Mul(s, inv)), zq), lo), hi);
    hn::StoreU(hn::DemoteTo(dq, hn::ConvertTo(di, r)), dq, q + i);
  }
  for (; i < end; ++i) {
    const float x = (static_cast<float>(a[i]) - p.a_zero_point) * p.a_scale;
    const float y = (static_cast<float>(b[i]) - p.b_zero_point) * p.b_scale;
    float s = x + y;
    if (p.relu && !(s > 0.f)) s = 0.f;
    const float r = std::nearbyint(s * p.inv_scale) + p.zero_point;
    q[i] = static_cast<Q>(static_cast<int32_t>(r < p.lo ? p.lo : (r > p.hi ? p.hi : r)));
  }
}

template <class A, class B>
void add_range_to(const Args& p, int64_t begin, int64_t end) {
  if (p.q_signed) {
    add_range<A, B, int8_t>(p, begin, end);
  } else {
    add_range<A, B, uint8_t>(p, begin, end);
  }
}

template <class A>
void add_range_of(const Args& p, int64_t begin, int64_t end) {
  if (p.b_signed) {
    add_range_to<A, int8_t>(p, begin, end);
  } else {
    add_range_to<A, uint8_t>(p, begin, end);
  }
}

void QuantizedAddImpl(const Args& p, int64_t begin, int64_t end) {
  if (p.a_signed) {
    add_range_of<int8_t>(p, begin, end);
  } else {
    add_range_of<uint8_t>(p, begin, end);
  }
}

}  // namespace xport::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace xport::kernels::cpu {

HWY_EXPORT(QuantizedAddImpl);

namespace {

constexpr int64_t kGrain = 1 << 15;

// Whether an 8-bit quantized dtype is int8 (false: uint8).
bool is_signed_8bit(DType dtype, const char* what) {
  XPORT_CHECK(dtype == DType::UInt8 || dtype == DType::Int8, InvalidInput,
              "xport::quantized_add: ", what, " must be uint8 or int8, got ", dtype_name(dtype));
  return dtype == DType::Int8;
}

}  // namespace

void quantized_add_out(const QuantizedOperand& a, const QuantizedOperand& b, bool relu,
                       double out_scale, int64_t out_zero_point, const Tensor& out) {
  XPORT_CHECK(a.values.int_sizes() == b.values.int_sizes() &&
                  a.values.int_sizes() == out.int_sizes(),
              Internal, "xport::quantized_add: operands and result of different shapes (the "
              "meta function checks them)");
  const Tensor x = contiguous_as(a.values, a.values.dtype());
  const Tensor y = contiguous_as(b.values, b.values.dtype());
  const bool q_signed = is_signed_8bit(out.dtype(), "the output");
  quantized_add_detail::Args p{
      .a = x.raw_data(),
      .b = y.raw_data(),
      .q = nullptr,
      .a_signed = is_signed_8bit(x.dtype(), "self"),
      .b_signed = is_signed_8bit(y.dtype(), "other"),
      .q_signed = q_signed,
      .a_zero_point = static_cast<float>(a.zero_point),
      .a_scale = static_cast<float>(a.scale),
      .b_zero_point = static_cast<float>(b.zero_point),
      .b_scale = static_cast<float>(b.scale),
      // quantize_per_tensor multiplies by float32(1 / scale).
      .inv_scale = static_cast<float>(1.0 / out_scale),
      .zero_point = static_cast<float>(out_zero_point),
      .lo = q_signed ? -128.f : 0.f,
      .hi = q_signed ? 127.f : 255.f,
      .relu = relu};
  const auto run = [&](void* q) {
    p.q = q;
    parallel_for(0, x.int_numel(), kGrain, [&p](int64_t begin, int64_t end) {
      XPORT_HWY_DISPATCH(QuantizedAddImpl)(p, begin, end);
    });
  };
  if (q_signed) {
    write_as<int8_t>(out, [&](int8_t* q) { run(q); });
  } else {
    write_as<uint8_t>(out, [&](uint8_t* q) { run(q); });
  }
}

}  // namespace xport::kernels::cpu
#endif  // HWY_ONCE
