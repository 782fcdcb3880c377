#pragma once
// The scales and zero points PyTorch's observers compute from a range
// (torch/ao/quantization/observer.py, _calculate_qparams), in float32 as they do, and the
// weights quantized with them by the same kernels as quantized_decomposed's ops.

#include <cstdint>

#include "xport/tensor/tensor.h"

namespace xport::quant::detail {

/// A per-tensor affine scale and zero point for values in [low, high] (0 always inside).
struct TensorParams {
  double scale = 1;  ///< a float32 value, as PyTorch's convert_pt2e writes it
  int64_t zero_point = 0;
};
TensorParams affine_params(float low, float high, int64_t quant_min, int64_t quant_max);

/// Weights in integers with their scales (float32) and zero points.
struct QuantizedWeight {
  Tensor values;       ///< int8 (int4 values in [-8, 7] for the group-wise form)
  Tensor scales;       ///< [out] per channel; [out, in / group] per group
  Tensor zero_points;  ///< int64 [out] per channel (zeros: symmetric); int32 per group
};

/// int8 per output channel (dim 0), symmetric over [-128, 127] as X86InductorQuantizer's
/// weight observer (PerChannelMinMaxObserver, per_channel_symmetric).
QuantizedWeight per_channel_int8(const Tensor& weight);

/// int4 per group of `group_size` input features of a [out, in] weight, affine over [-8, 7].
QuantizedWeight per_group_int4(const Tensor& weight, int64_t group_size);

}  // namespace xport::quant::detail
