#include "quant/qparams.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/quantize.h"
#include "xport/core/error.h"
#include "xport/ops/functions.h"

namespace xport::quant::detail {
namespace {

constexpr float kEps = std::numeric_limits<float>::epsilon();  // the observers' eps

// PyTorch's affine formula for one range, in float32.
void affine(float low, float high, int64_t quant_min, int64_t quant_max, float* scale,
            int64_t* zero_point) {
  const float min_neg = std::min(low, 0.0f), max_pos = std::max(high, 0.0f);
  *scale = std::max((max_pos - min_neg) / static_cast<float>(quant_max - quant_min), kEps);
  const auto steps = static_cast<int64_t>(std::nearbyint(min_neg / *scale));
  *zero_point = std::clamp(quant_min - steps, quant_min, quant_max);
}

Tensor floats(std::vector<float> values, std::vector<int64_t> sizes) {
  return from_vector<float>(std::move(values), std::move(sizes));
}

}  // namespace

TensorParams affine_params(float low, float high, int64_t quant_min, int64_t quant_max) {
  float scale = 1;
  TensorParams p;
  affine(low, high, quant_min, quant_max, &scale, &p.zero_point);
  p.scale = scale;
  return p;
}

QuantizedWeight per_channel_int8(const Tensor& weight) {
  const Tensor w = weight.contiguous();
  const int64_t channels = w.int_size(0), inner = w.int_numel() / channels;
  const float* d = w.data<float>();
  std::vector<float> scales(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    float low = 0, high = 0;
    for (int64_t i = 0; i < inner; ++i) {
      low = std::min(low, d[c * inner + i]);
      high = std::max(high, d[c * inner + i]);
    }
    // per_channel_symmetric: the wider side over half the range, (127 - -128) / 2.
    scales[c] = std::max(std::max(-low, high) / 127.5f, kEps);
  }
  QuantizedWeight q{.values = Tensor::empty_contiguous(w.int_sizes(), DType::Int8),
                    .scales = floats(scales, {channels}),
                    .zero_points = zeros({channels}, DType::Int64)};
  kernels::cpu::quantize_per_channel_out(w, q.scales, q.zero_points, 0, -128, 127, q.values);
  return q;
}

QuantizedWeight per_group_int4(const Tensor& weight, int64_t group_size) {
  const Tensor w = weight.contiguous();
  const int64_t rows = w.int_size(0), cols = w.int_size(1), groups = cols / group_size;
  const float* d = w.data<float>();
  std::vector<float> scales(static_cast<size_t>(rows * groups));
  std::vector<int32_t> zero_points(scales.size());
  for (int64_t g = 0; g < rows * groups; ++g) {
    const float* v = d + g * group_size;
    const auto [low, high] = std::minmax_element(v, v + group_size);
    int64_t zp = 0;
    affine(*low, *high, -8, 7, &scales[g], &zp);
    zero_points[g] = static_cast<int32_t>(zp);
  }
  QuantizedWeight q{.values = Tensor::empty_contiguous(w.int_sizes(), DType::Int8),
                    .scales = floats(scales, {rows, groups}),
                    .zero_points = from_vector<int32_t>(zero_points, {rows, groups})};
  kernels::cpu::quantize_per_channel_group_out(w, q.scales, q.zero_points, group_size, -8, 7,
                                               q.values);
  return q;
}

}  // namespace xport::quant::detail
