#include "kernels/cpu/quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/vec_math.h"
#include "tensor/file_mapping.h"
#include "xport/core/error.h"

namespace xport::kernels::cpu {
namespace {

constexpr int64_t kGrain = 1 << 14;
constexpr int64_t kChunk = 1024;  // floats rounded at a time, on the stack

// Float to int32 as x86's cvtt instructions (and so PyTorch's CPU kernels) convert: toward zero,
// with NaN and values outside int32 giving INT32_MIN. Narrower integers then keep the low bits.
template <class T>
int32_t to_int32_as_x86(T v) {
  if (!(v >= T(-2147483648.0) && v < T(2147483648.0)))
    return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

// torch.clamp: NaN stays NaN.
template <class T>
T clamp_keeping_nan(T v, T lo, T hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// Calls fn(Q{}) with the C++ type of a quantized dtype.
template <class Fn>
void visit_quantized(DType dtype, const Fn& fn) {
  switch (dtype) {
    case DType::UInt8: return fn(uint8_t{});
    case DType::Int8: return fn(int8_t{});
    case DType::Int16: return fn(int16_t{});
    case DType::Int32: return fn(int32_t{});
    default:
      XPORT_FAIL(InvalidInput, "quantize: the quantized dtype must be uint8, int8, int16 or "
                  "int32, got ", dtype_name(dtype));
  }
}

// Sizes around `axis`: [outer, channels, inner] of a contiguous tensor.
struct ChannelSplit {
  int64_t outer = 1, channels = 1, inner = 1;
};

// Rows of `inner` elements per task: about kGrain elements.
int64_t row_grain(const ChannelSplit& s) {
  return std::max<int64_t>(1, kGrain / std::max<int64_t>(s.inner, 1));
}

ChannelSplit split_at(const Tensor& t, int64_t axis) {
  const std::vector<int64_t> sizes = t.int_sizes();
  ChannelSplit s;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    if (d < axis) s.outer *= sizes[d];
    else if (d == axis) s.channels = sizes[d];
    else s.inner *= sizes[d];
  }
  return s;
}

}  // namespace

void quantize_per_tensor_out(const Tensor& input, double scale, int64_t zero_point,
                             int64_t quant_min, int64_t quant_max, const Tensor& out) {
  const Tensor x = contiguous_as(input, DType::Float32);
  const float* xd = x.data<float>();
  const int64_t n = x.int_numel();
  // PyTorch multiplies by the Python float 1.0 / scale, which a float32 tensor's kernel reads as
  // float32.
  const auto inv = static_cast<float>(1.0 / scale);
  const auto zp = static_cast<float>(zero_point);
  const auto lo = static_cast<float>(quant_min);
  const auto hi = static_cast<float>(quant_max);
  visit_quantized(out.dtype(), [&](auto zero) {
    using Q = decltype(zero);
    write_as<Q>(out, [&](Q* q) {
      parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
        float rounded[kChunk];
        for (int64_t c = b; c < e; c += kChunk) {
          const int64_t m = std::min(kChunk, e - c);
          vec::affine_round(xd + c, rounded, m, inv, zp, lo, hi);
          if constexpr (sizeof(Q) == 1) {
            // Within [lo, hi], a subset of [-128, 255]: only NaN needs x86's conversion (to
            // INT32_MIN, whose low byte is 0).
            for (int64_t i = 0; i < m; ++i) {
              const float v = rounded[i];
              q[c + i] = v == v ? static_cast<Q>(static_cast<int32_t>(v)) : Q(0);
            }
          } else {
            for (int64_t i = 0; i < m; ++i) q[c + i] = static_cast<Q>(to_int32_as_x86(rounded[i]));
          }
        }
      });
    });
  });
}

// The common case, 8-bit integers to contiguous float32, in one pass: the conversion of each
// value to float is exact, so this is (float(q) - zero_point) * scale as PyTorch computes it.
template <class Q>
void dequantize_8bit(const Q* q, float* y, int64_t n, float zp, float s) {
  parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) y[i] = (static_cast<float>(q[i]) - zp) * s;
  });
}

void dequantize_per_tensor_out(const Tensor& input, double scale, int64_t zero_point,
                               const Tensor& out) {
  const int64_t n = input.int_numel();
  if (out.dtype() == DType::Float32 && out.is_contiguous() &&
      (input.dtype() == DType::UInt8 || input.dtype() == DType::Int8)) {
    const Tensor q = contiguous_as(input, input.dtype());
    const auto zp = static_cast<float>(zero_point);
    const auto s = static_cast<float>(scale);
    auto* y = out.mutable_data<float>();
    if (q.dtype() == DType::UInt8) {
      dequantize_8bit(q.data<uint8_t>(), y, n, zp, s);
    } else {
      dequantize_8bit(q.data<int8_t>(), y, n, zp, s);
    }
    return;
  }
  const bool half_out = out.dtype() == DType::Float16 || out.dtype() == DType::BFloat16;
  visit_floating(out.dtype(), [&](auto zero) {
    using T = decltype(zero);  // double for float64, float otherwise
    const Tensor q = contiguous_as(input, out.dtype() == DType::Float64 ? DType::Float64
                                                                         : DType::Float32);
    const T* qd = q.data<T>();
    const auto zp = static_cast<T>(zero_point);
    const auto s = static_cast<T>(scale);
    if constexpr (std::is_same_v<T, float>) {
      if (half_out) {
        // (q.to(half) - zero_point) rounds to the half type before the product.
        write_as<float>(out, [&](float* y) {
          for (int64_t i = 0; i < n; ++i) y[i] = qd[i] - zp;
        });
        const Tensor d = contiguous_as(out, DType::Float32);
        const float* dd = d.data<float>();
        write_as<float>(out, [&](float* y) {
          for (int64_t i = 0; i < n; ++i) y[i] = dd[i] * s;
        });
        return;
      }
    }
    write_as<T>(out, [&](T* y) {
      parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) y[i] = (qd[i] - zp) * s;
      });
    });
  });
}

namespace {

// Affine quantization of rows: row r of `s.outer * s.channels` (`s.inner` contiguous values)
// takes the parameters of channel r % s.channels. Per channel rounds, then adds the zero point;
// per group (PyTorch's quantize_per_channel_group) adds it before rounding.
void quantize_rows(const Tensor& input, const Tensor& scales, const Tensor& zero_points,
                   const ChannelSplit& s, bool add_before_round, int64_t quant_min,
                   int64_t quant_max, const Tensor& out) {
  const Tensor x = contiguous_as(input, DType::Float32);
  const Tensor zps = contiguous_as(zero_points, DType::Int64);
  const float* xd = x.data<float>();
  const int64_t* zd = zps.data<int64_t>();
  visit_floating(scales.dtype(), [&](auto zero) {
    using T = decltype(zero);  // the scales' dtype, and the product's
    const Tensor sc = contiguous_as(scales, dtype_v<T>);
    std::vector<T> inv(static_cast<size_t>(s.channels));
    for (int64_t c = 0; c < s.channels; ++c) inv[c] = T(1) / sc.data<T>()[c];
    const auto lo = static_cast<T>(quant_min);
    const auto hi = static_cast<T>(quant_max);
    visit_quantized(out.dtype(), [&](auto qzero) {
      using Q = decltype(qzero);
      write_as<Q>(out, [&](Q* q) {
        parallel_for(0, s.outer * s.channels, row_grain(s), [&](int64_t b, int64_t e) {
          for (int64_t row = b; row < e; ++row) {
            const int64_t c = row % s.channels;
            const T zp = static_cast<T>(zd[c]);
            const float* xr = xd + row * s.inner;
            Q* qr = q + row * s.inner;
            for (int64_t i = 0; i < s.inner; ++i) {
              const T scaled = static_cast<T>(xr[i]) * inv[c];
              const T v = add_before_round ? std::nearbyint(scaled + zp)
                                           : std::nearbyint(scaled) + zp;
              qr[i] = static_cast<Q>(to_int32_as_x86(clamp_keeping_nan(v, lo, hi)));
            }
          }
        });
      });
    });
  });
}

// (q - zero_point) * scale, row by row as quantize_rows reads them, computed in the scales'
// dtype (zero_points undefined: no subtraction), then converted to out's dtype.
void dequantize_rows(const Tensor& input, const Tensor& scales, const Tensor& zero_points,
                     const ChannelSplit& s, const Tensor& out) {
  const Tensor q = contiguous_as(input, DType::Int64);
  const int64_t* qd = q.data<int64_t>();
  std::vector<int64_t> zp(static_cast<size_t>(s.channels), 0);
  if (zero_points.defined()) {
    const Tensor zps = contiguous_as(zero_points, DType::Int64);
    std::copy_n(zps.data<int64_t>(), s.channels, zp.begin());
  }
  visit_floating(scales.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor sc = contiguous_as(scales, dtype_v<T>);
    const T* sd = sc.data<T>();
    write_as<T>(out, [&](T* y) {
      parallel_for(0, s.outer * s.channels, row_grain(s), [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
          const int64_t c = row % s.channels;
          for (int64_t i = row * s.inner; i < (row + 1) * s.inner; ++i)
            y[i] = static_cast<T>(qd[i] - zp[c]) * sd[c];
        }
      });
    });
  });
}

// Groups of `group_size` consecutive values, one scale (and zero point) each.
ChannelSplit groups_of(const Tensor& input, int64_t group_size) {
  return {.outer = 1, .channels = input.int_numel() / group_size, .inner = group_size};
}

}  // namespace

void quantize_per_channel_out(const Tensor& input, const Tensor& scales,
                              const Tensor& zero_points, int64_t axis, int64_t quant_min,
                              int64_t quant_max, const Tensor& out) {
  quantize_rows(input, scales, zero_points, split_at(input, axis), false, quant_min, quant_max,
                out);
}

void dequantize_per_channel_out(const Tensor& input, const Tensor& scales,
                                const Tensor& zero_points, int64_t axis, const Tensor& out) {
  dequantize_rows(input, scales, zero_points, split_at(input, axis), out);
}

void quantize_per_channel_group_out(const Tensor& input, const Tensor& scales,
                                    const Tensor& zero_points, int64_t group_size,
                                    int64_t quant_min, int64_t quant_max, const Tensor& out) {
  quantize_rows(input, scales, zero_points, groups_of(input, group_size), true, quant_min,
                quant_max, out);
}

void dequantize_per_channel_group_out(const Tensor& input, const Tensor& scales,
                                      const Tensor& zero_points, int64_t group_size,
                                      const Tensor& out) {
  dequantize_rows(input, scales, zero_points, groups_of(input, group_size), out);
}

IntegerWeights integer_weights(Tensor weight, const Tensor& scales, Tensor bias, int64_t rank,
                               const char* who) {
  XPORT_CHECK(weight.dim() == rank && weight.dtype() == DType::Int8 && scales.dim() == 1 &&
                  scales.int_size(0) == weight.int_size(0) &&
                  (!bias.defined() || (bias.dim() == 1 && bias.dtype() == DType::Float32 &&
                                       bias.int_size(0) == weight.int_size(0))),
              InvalidInput, who, ": expected int8 weights of ", rank, " dims, one float scale "
              "per output channel and a float32 bias of as many");
  IntegerWeights w{.weight = std::move(weight), .scales = {}, .bias = {}, .dequantized = {}};
  const Tensor s = contiguous_as(scales, DType::Float32);
  w.scales.assign(s.data<float>(), s.data<float>() + s.int_numel());
  if (bias.defined()) w.bias = contiguous_as(bias, DType::Float32);
  if (!onednn_exact_int8()) {
    w.dequantized = Tensor::empty_contiguous(w.weight.int_sizes(), DType::Float32);
    dequantize_per_channel_out(w.weight, scales, Tensor(), 0, w.dequantized);
    detail::release_file_pages(w.weight);
  }
  return w;
}

void choose_qparams_out(const Tensor& input, int64_t quant_min, int64_t quant_max, double eps,
                        bool symmetric, bool unsigned_8bit, const Tensor& scale,
                        const Tensor& zero_point) {
  const int64_t n = input.int_numel();
  XPORT_CHECK(n > 0, InvalidInput, "quantized_decomposed::choose_qparams: the input is empty, "
              "so it has no range to take a scale from (PyTorch's aminmax refuses it too)");
  const Tensor x = contiguous_as(input, DType::Float32);
  const float* xd = x.data<float>();
  // The range, in chunks on the threads (NaN when any value is).
  const int64_t chunks = std::min<int64_t>((n + kGrain - 1) / kGrain, 64);
  std::vector<float> lows(static_cast<size_t>(chunks)), highs(static_cast<size_t>(chunks));
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const int64_t begin = n * c / chunks, end = n * (c + 1) / chunks;
      lows[c] = vec::amin(xd + begin, end - begin);
      highs[c] = vec::amax(xd + begin, end - begin);
    }
  });
  float lo = vec::amin(lows.data(), chunks), hi = vec::amax(highs.data(), chunks);
  // The steps before the comparison with eps run in the input's dtype: a 16-bit input rounds
  // after each.
  const DType dtype = input.dtype();
  const auto in_dtype = [dtype](float v) -> float {
    if (dtype == DType::BFloat16) return BFloat16(v);
    if (dtype == DType::Float16) return Half(v);
    return v;
  };
  const auto nan_min = [](float a, float b) { return std::isnan(a) ? a : std::min(a, b); };
  const auto nan_max = [](float a, float b) {
    return std::isnan(a) || std::isnan(b) ? a + b : std::max(a, b);
  };
  const float min_neg = nan_min(lo, 0.0f);
  float max_pos = nan_max(hi, 0.0f);
  const auto eps32 = static_cast<float>(eps);
  float s = 0;
  int64_t zp = 0;
  if (symmetric) {
    max_pos = nan_max(in_dtype(-min_neg), max_pos);
    const auto half_range = static_cast<float>(static_cast<double>(quant_max - quant_min) / 2);
    s = nan_max(in_dtype(max_pos / half_range), eps32);
    zp = unsigned_8bit ? 128 : 0;
  } else {
    s = nan_max(in_dtype(in_dtype(max_pos - min_neg) / static_cast<float>(quant_max - quant_min)),
                eps32);
    // quant_min - round(min_neg / scale).to(int32), in int32 (wrapping), then clamped.
    const int32_t r = to_int32_as_x86(std::nearbyint(min_neg / s));
    const auto z =
        static_cast<int32_t>(static_cast<uint32_t>(quant_min) - static_cast<uint32_t>(r));
    zp = std::clamp<int64_t>(z, quant_min, quant_max);
  }
  write_as<double>(scale, [&](double* p) { p[0] = s; });
  write_as<int64_t>(zero_point, [&](int64_t* p) { p[0] = zp; });
}

}  // namespace xport::kernels::cpu
