#pragma once
// Affine quantization as PyTorch's PT2E programs spell it (`quantized_decomposed::*`): float to
// integer, integer to float, per tensor or per channel, and the choice of a tensor's scale and
// zero point from its range. Each kernel gives bit for bit what PyTorch's reference formulas
// give (torch/ao/quantization/fx/_decomposed.py): the same operations in the same order and
// precision, float-to-integer conversion included (out of range and NaN as x86 converts them).

#include <cstdint>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// out = clamp(round(input * float(1 / scale)) + zero_point, quant_min, quant_max), rounded half
/// to even, in float32 (float16 and bfloat16 inputs are widened first), converted to out's
/// integer dtype.
void quantize_per_tensor_out(const Tensor& input, double scale, int64_t zero_point,
                             int64_t quant_min, int64_t quant_max, const Tensor& out);

/// out = (float(input) - zero_point) * scale, in out's dtype (float64 computes in double; the
/// 16-bit floats round after each of the two steps, as PyTorch's ops on them do).
void dequantize_per_tensor_out(const Tensor& input, double scale, int64_t zero_point,
                               const Tensor& out);

/// Per channel along `axis` (wrapped), with float32 or float64 `scales` and integer
/// `zero_points` of one element per channel: clamp(round(input * (1 / scales)) + zero_points),
/// the reciprocal taken in the scales' dtype and the product in the wider of it and float32.
void quantize_per_channel_out(const Tensor& input, const Tensor& scales,
                              const Tensor& zero_points, int64_t axis, int64_t quant_min,
                              int64_t quant_max, const Tensor& out);

/// Per channel: (input - zero_points) * scales in the scales' dtype (zero_points undefined: no
/// subtraction), then converted to out's dtype.
void dequantize_per_channel_out(const Tensor& input, const Tensor& scales,
                                const Tensor& zero_points, int64_t axis, const Tensor& out);

/// Per group of `group_size` consecutive values (PyTorch's quantize_per_channel_group: a 2-d
/// input whose last dim the group divides, one scale and zero point per group, in order):
/// clamp(round(input * (1 / scales) + zero_points)), the zero point added before rounding.
void quantize_per_channel_group_out(const Tensor& input, const Tensor& scales,
                                    const Tensor& zero_points, int64_t group_size,
                                    int64_t quant_min, int64_t quant_max, const Tensor& out);

/// Per group: (input - zero_points) * scales in the scales' dtype (zero_points undefined: no
/// subtraction), then converted to out's dtype.
void dequantize_per_channel_group_out(const Tensor& input, const Tensor& scales,
                                      const Tensor& zero_points, int64_t group_size,
                                      const Tensor& out);

/// The scale (float64, [1]) and zero point (int64, [1]) of input's range [min(x, 0), max(x, 0)]:
/// affine, or symmetric about zero (then the zero point is 128 for uint8, 0 otherwise). `eps`
/// bounds the scale from below. Refuses an empty input, as aminmax does.
void choose_qparams_out(const Tensor& input, int64_t quant_min, int64_t quant_max, double eps,
                        bool symmetric, bool unsigned_8bit, const Tensor& scale,
                        const Tensor& zero_point);

/// What the integer kernels (PackedQuantizedLinear, PackedQuantizedConv2d) keep of their
/// weights: the int8 weights, their scales as float32, a contiguous float32 bias (or none),
/// and, where oneDNN's integer products are not exact (no VNNI), the weights dequantized once
/// (dequantize_per_channel along dim 0), the file pages of the int8 ones handed back.
struct IntegerWeights {
  Tensor weight;
  std::vector<float> scales;
  Tensor bias;
  Tensor dequantized;  ///< undefined where the integer kernels run
};
/// Checks int8 weights of `rank` dims with one scale (and bias value) per dim-0 slice; `who`
/// names the kernel in the error.
IntegerWeights integer_weights(Tensor weight, const Tensor& scales, Tensor bias, int64_t rank,
                               const char* who);

}  // namespace xport::kernels::cpu
