#pragma once
// A 2-D convolution on integers, out = conv(dequantize(input), dequantize(weight)) + bias, as
// PT2E's quantized programs spell a convolution (dequantize_per_tensor of the activations,
// dequantize_per_channel of int8 weights with zero points 0), computed as oneDNN's u8 (or s8) x
// s8 convolution with int32 accumulation, scaled per output channel by input_scale *
// weight_scales[o]. The weights are reordered once; the input's scale and zero point are read
// per run (static and dynamic quantization). The input (NCHW, or NHWC where the runtime passes
// it so: ConvLayouts) is reordered to the layout oneDNN's integer kernels read where that
// differs, and their result back to NCHW (or left NHWC).
// Without VNNI (cpu_isa.h's onednn_exact_int8) it computes PyTorch's reference formula instead:
// the weights dequantized once to float32, the input per run, on PackedConv2d.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "kernels/cpu/conv.h"
#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// The quantize after a convolution (and an optional ReLU between), done by the convolution
/// itself: out = clamp(round(relu?(conv) / output_scale) + output_zero_point) over the output
/// dtype's whole range, as oneDNN's integer kernels write it (output scales, ReLU post-op and
/// zero point; the int8 layout reordered to NCHW is one byte a value). With `residual`, a
/// quantized residual of the output's shape and dtype is added before the ReLU:
/// out = quantize(relu?(conv + (residual - residual_zero_point) * residual_scale)), oneDNN's
/// sum post-op (ResNet's block: conv, add, ReLU, quantize). With `quantize_conv` (XNNPACK's
/// block, which quantizes the convolution's result before the add) the convolution's result is
/// first quantized to conv_dtype's whole range and dequantized: in conv steps, rounded and
/// clipped, then scaled to output steps (oneDNN's round, clip and linear post-ops).
struct Requantize {
  bool relu = false;
  double output_scale = 1;
  int64_t output_zero_point = 0;
  DType dtype = DType::UInt8;  ///< uint8 or int8
  bool residual = false;
  double residual_scale = 1;
  int64_t residual_zero_point = 0;
  bool quantize_conv = false;
  double conv_scale = 1;
  int64_t conv_zero_point = 0;
  DType conv_dtype = DType::Int8;  ///< uint8 or int8
};

class PackedQuantizedConv2d {
 public:
  /// weight int8 [O, C / groups, KH, KW], weight_scales float [O], bias float32 [O] or
  /// undefined. None of them changes afterwards. With `requantize`, the result is quantized
  /// (run's out is of its dtype). `fixed_input_scale` (static quantization: one input scale
  /// for every run; implied by `requantize`) builds the scales and bias into the primitive,
  /// which then writes float32 itself instead of int32 sums that a reorder scales.
  PackedQuantizedConv2d(Tensor weight, const Tensor& weight_scales, Tensor bias,
                        Conv2dParams params, std::optional<Requantize> requantize = {},
                        bool fixed_input_scale = false);
  ~PackedQuantizedConv2d();
  PackedQuantizedConv2d(const PackedQuantizedConv2d&) = delete;
  PackedQuantizedConv2d& operator=(const PackedQuantizedConv2d&) = delete;

  /// out float32 [N, O, OH, OW] (contiguous, sized by the caller; uint8 or int8 when it
  /// requantizes) from input uint8 or int8 [N, C, H, W]; `residual` (out's shape and dtype) is
  /// given exactly when the Requantize has one. Thread-safe.
  void run(const Tensor& input, double input_scale, int64_t input_zero_point,
           const Tensor& residual, const Tensor& out) const;
  /// Which of input, residual and output are channels-last (NHWC) in memory although their
  /// metadata says NCHW (as PackedConv2d's); call before the first run. Static quantization on
  /// oneDNN's integer kernels only: elsewhere every tensor stays NCHW.
  void set_layouts(ConvLayouts layouts);
  /// Whether set_layouts may pass tensors channels-last (oneDNN's integer kernels run it).
  bool takes_layouts() const { return fixed_input_scale_ && !in_float_; }

 private:
  struct Primitive;
  std::shared_ptr<const Primitive> primitive_for(const std::vector<int64_t>& in_sizes,
                                                 const std::vector<int64_t>& out_sizes,
                                                 DType input_dtype, float input_scale,
                                                 int64_t input_zero_point) const;
  void run_in_float(const Tensor& input, double input_scale, int64_t input_zero_point,
                    const Tensor& residual, const Tensor& out) const;

  Tensor weight_, bias_;
  std::vector<float> weight_scales_;
  Conv2dParams params_;
  std::optional<Requantize> requantize_;
  bool fixed_input_scale_;
  ConvLayouts layouts_;
  mutable std::mutex mutex_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Primitive>> primitives_;
  std::unique_ptr<const PackedConv2d> in_float_;  // without VNNI
};

}  // namespace xport::kernels::cpu
