#pragma once
// 2-D convolution (NCHW). float32 runs on oneDNN's convolution primitive (cached per shape);
// 16-bit floats compute in float32; float64 and integers use a direct loop.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

struct Conv2dParams {
  std::array<int64_t, 2> stride = {1, 1};
  std::array<int64_t, 2> padding = {0, 0};
  std::array<int64_t, 2> dilation = {1, 1};
  int64_t groups = 1;

  /// From a schema's `int[2]` lists, each of one value (both dims) or two.
  static Conv2dParams of(const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                         const std::vector<int64_t>& dilation, int64_t groups) {
    const auto pair = [](const std::vector<int64_t>& v) {
      return std::array<int64_t, 2>{v.at(0), v.size() == 1 ? v[0] : v.at(1)};
    };
    return {.stride = pair(stride), .padding = pair(padding), .dilation = pair(dilation),
            .groups = groups};
  }
};

/// out [N, O, OH, OW] = conv(input [N, C, H, W], weight [O, C / groups, KH, KW]) + bias [O]
/// (bias may be undefined). The caller has validated the shapes and sized `out`.
void conv2d_out(const Tensor& input, const Tensor& weight, const Tensor& bias,
                const Conv2dParams& params, const Tensor& out);

/// What a fused convolution does to its result before storing it:
/// out = relu?(conv(input) + bias + residual?).
struct ConvEpilogue {
  bool residual = false;
  bool relu = false;
};

/// Which tensors of a PackedConv2d are channels-last (NHWC) in memory although their metadata
/// says NCHW. A tensor passed only between packed convolutions is kept so: oneDNN's brgemm
/// kernels read and write NHWC directly, so neither side reorders it. Nothing else may read such
/// a tensor (its byte size is NCHW's).
struct ConvLayouts {
  bool src_nhwc = false;
  bool residual_nhwc = false;
  bool dst_nhwc = false;
};

/// How many channels lie innermost in the layout that packed convolutions pass a float32
/// [N, C, H, W] tensor of these sizes in (ConvLayouts): oneDNN's channel block for this CPU (16
/// or 8: [N, C / block, H, W, block]), or C where the channels do not fill whole blocks
/// (channels-last).
int64_t passed_channel_block(const std::vector<int64_t>& sizes);

/// A float32 convolution whose weights never change (a loaded program's constants): oneDNN's
/// primitive for each input shape is made once, with the epilogue as post-ops, and the weights
/// are reordered into the layout it wants once, not on every call. Thread-safe.
class PackedConv2d {
 public:
  PackedConv2d(Tensor weight, Tensor bias, Conv2dParams params, ConvEpilogue epilogue);
  ~PackedConv2d();
  PackedConv2d(const PackedConv2d&) = delete;
  PackedConv2d& operator=(const PackedConv2d&) = delete;

  /// out (contiguous, sized by the caller) = the convolution of `input` with the epilogue;
  /// `residual` (out's shape) is given exactly when the epilogue has one. Throws dnnl::error
  /// when oneDNN has no implementation for the shape.
  void run(const Tensor& input, const Tensor& residual, const Tensor& out) const;
  /// Which of input, residual and output are channels-last (default: none); call before the
  /// first run.
  void set_layouts(ConvLayouts layouts);

 private:
  struct Packed;
  std::shared_ptr<const Packed> packed_for(const std::vector<int64_t>& in_sizes,
                                           const std::vector<int64_t>& out_sizes) const;

  Tensor weight_, bias_;
  Conv2dParams params_;
  ConvEpilogue epilogue_;
  ConvLayouts layouts_;
  mutable std::mutex mutex_;
  mutable std::map<std::array<int64_t, 22>, std::shared_ptr<const Packed>> packed_;
  // The weights reordered for oneDNN, one per layout asked for (input shapes share them).
  struct WeightCopy;
  mutable std::vector<std::shared_ptr<const WeightCopy>> weight_copies_;
};

}  // namespace xport::kernels::cpu
