#pragma once
// A 2-D convolution on integers, out = conv(dequantize(input), dequantize(weight)) + bias, as
// PT2E's quantized programs spell a convolution (dequantize_per_tensor of the activations,
// dequantize_per_channel of int8 weights with zero points 0), computed as oneDNN's u8 (or s8) x
// s8 convolution with int32 accumulation, scaled per output channel by input_scale *
// weight_scales[o]. The weights are reordered once; the input's scale and zero point are read
// per run (static and dynamic quantization). The input (NCHW) is reordered to the layout
// oneDNN's integer kernels read, and their int32 sums back to float32 NCHW, scaled per channel.
// Without VNNI (cpu_isa.h's onednn_exact_int8) it computes PyTorch's reference formula instead:
// the weights dequantized once to float32, the input per run, on PackedConv2d.

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/cpu/conv.h"
#include "xport/tensor.h"

namespace xport::kernels::cpu {

class PackedQuantizedConv2d {
 public:
  /// weight int8 [O, C / groups, KH, KW], weight_scales float [O], bias float32 [O] or
  /// undefined. None of them changes afterwards.
  PackedQuantizedConv2d(Tensor weight, const Tensor& weight_scales, Tensor bias,
                        Conv2dParams params);
  ~PackedQuantizedConv2d();
  PackedQuantizedConv2d(const PackedQuantizedConv2d&) = delete;
  PackedQuantizedConv2d& operator=(const PackedQuantizedConv2d&) = delete;

  /// out float32 [N, O, OH, OW] (contiguous, sized by the caller) from input uint8 or int8
  /// [N, C, H, W]. Thread-safe.
  void run(const Tensor& input, double input_scale, int64_t input_zero_point,
           const Tensor& out) const;

 private:
  struct Primitive;
  std::shared_ptr<const Primitive> primitive_for(const std::vector<int64_t>& in_sizes,
                                                 const std::vector<int64_t>& out_sizes,
                                                 DType input_dtype) const;

  Tensor weight_, bias_;
  std::vector<float> weight_scales_;
  Conv2dParams params_;
  mutable std::mutex mutex_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Primitive>> primitives_;
  std::unique_ptr<const PackedConv2d> in_float_;  // without VNNI
};

}  // namespace xport::kernels::cpu
