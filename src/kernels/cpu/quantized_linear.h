#pragma once
// A matrix product on integers, out = dequantize(input) @ dequantize(weight)^T + bias, as PT2E's
// quantized programs spell a linear layer (dequantize_per_tensor of the activations,
// dequantize_per_channel of int8 weights with zero points 0) but computed as oneDNN's u8 x s8
// (or s8 x s8) matmul with int32 accumulation: out[m, n] = input_scale * weight_scales[n] *
// sum_k (input[m, k] - input_zero_point) * weight[n, k] + bias[n]. The weights are reordered once
// into the layout oneDNN's integer kernels read (VNNI or AMX where the CPU has them); the input's
// scale and zero point are read per run, so dynamic quantization takes the same kernel. With a
// fixed input scale (static quantization) the scales, the zero point and the bias are built into
// one primitive per value, which lets oneDNN take its brgemm kernels.
// Where oneDNN's integer products would saturate (no VNNI: cpu_isa.h's onednn_exact_int8), it
// computes as PyTorch's reference does instead: the weights dequantized once to float32 (four
// times the memory) and the input per run, on PackedLinear.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "kernels/cpu/packed_linear.h"
#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// The activation and the quantize after a matrix product of static quantization, done by its
/// primitive (an eltwise post-op, then the reciprocal of the output scale and the zero point):
/// out = clamp(round(activation(x) * (1 / output_scale)) + output_zero_point) over the whole
/// range of the output dtype (uint8 or int8).
struct LinearRequantize {
  LinearActivation activation = LinearActivation::None;
  double output_scale = 1;
  int64_t output_zero_point = 0;
  DType dtype = DType::UInt8;
};

class PackedQuantizedLinear {
 public:
  /// weight int8 [N, K] (PyTorch's layout, any strides), weight_scales float [N] (float32 or
  /// float64), bias float32 [N] or undefined. None of them changes afterwards.
  /// `fixed_input_scale`: every run's input scale and zero point are one pair of values
  /// (implied by `requantize`, whose result is of its dtype).
  PackedQuantizedLinear(Tensor weight, const Tensor& weight_scales, Tensor bias,
                        bool fixed_input_scale = false,
                        std::optional<LinearRequantize> requantize = {});
  ~PackedQuantizedLinear();
  PackedQuantizedLinear(const PackedQuantizedLinear&) = delete;
  PackedQuantizedLinear& operator=(const PackedQuantizedLinear&) = delete;

  /// out float32 [M, N] (contiguous; of the requantize's dtype when it has one) from input
  /// uint8 or int8 [M, K]. Thread-safe.
  void run(const Tensor& input, double input_scale, int64_t input_zero_point,
           const Tensor& out) const;

 private:
  struct Primitive;
  struct Packed;
  std::shared_ptr<const Primitive> primitive_for(int64_t rows, DType input_dtype,
                                                 float input_scale,
                                                 int64_t input_zero_point) const;
  void run_in_float(const Tensor& input, double input_scale, int64_t input_zero_point,
                    const Tensor& out) const;

  Tensor weight_, bias_;
  std::vector<float> weight_scales_;
  bool fixed_input_scale_;
  std::optional<LinearRequantize> requantize_;
  mutable std::mutex mutex_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Primitive>> primitives_;
  mutable std::shared_ptr<const Packed> packed_;
  std::unique_ptr<const PackedLinear> in_float_;  // without VNNI
};

}  // namespace xport::kernels::cpu
