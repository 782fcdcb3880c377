#include "kernels/cpu/quantized_conv.h"

#include <bit>
#include <unordered_map>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/onednn.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/quantize.h"
#include "kernels/cpu/vec_math.h"
#include "tensor/file_mapping.h"

namespace xport::kernels::cpu {

using dnnl::memory;

struct PackedQuantizedConv2d::Primitive {
  dnnl::convolution_forward conv;
  memory::desc user_src_md, src_md, user_dst_md, dst_md, scratch_md;
  std::shared_ptr<Storage> weights;  // in the layout conv reads (weights_md)
  memory::desc weights_md;
  bool src_zero_point = false;  // given at run time (static quantization with zero point 0: none)
  // The reorders take their scratchpad from the caller, as the convolution does: oneDNN's
  // cache gives identical primitives one shared object, whose own scratchpad two threads would
  // both write.
  std::unique_ptr<dnnl::reorder> src_reorder;  // null where the layouts agree
  memory::desc src_reorder_scratch_md, dst_reorder_scratch_md;
  // int32 sums to float32 NCHW, scaled per output channel; or the primitive's float32 or
  // requantized result to NCHW. Null where conv writes the output as it is.
  std::unique_ptr<dnnl::reorder> dst_reorder;
  // The residual into the memory conv writes, which its sum post-op reads.
  std::unique_ptr<dnnl::reorder> residual_reorder;
  memory::desc user_residual_md, residual_reorder_scratch_md;
  std::vector<float> bias;  // a fixed input scale's: the bias divided by each channel's scale
};

namespace {

// A reorder whose scratchpad the caller gives.
std::unique_ptr<dnnl::reorder> reorder_between(const memory::desc& from, const memory::desc& to,
                                               memory::desc& scratch_md,
                                               const dnnl::primitive_attr& attr = {}) {
  dnnl::primitive_attr with_scratchpad = attr;
  with_scratchpad.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::engine& eng = onednn_engine();
  const dnnl::reorder::primitive_desc pd(eng, from, eng, to, with_scratchpad);
  note_implementation(pd);
  scratch_md = pd.scratchpad_desc();
  return std::make_unique<dnnl::reorder>(pd);
}

}  // namespace

PackedQuantizedConv2d::PackedQuantizedConv2d(Tensor weight, const Tensor& weight_scales,
                                             Tensor bias, Conv2dParams params,
                                             std::optional<Requantize> requantize,
                                             bool fixed_input_scale)
    : params_(params),
      requantize_(requantize),
      fixed_input_scale_(fixed_input_scale || requantize) {
  IntegerWeights w = integer_weights(std::move(weight), weight_scales, std::move(bias), 4,
                                     "PackedQuantizedConv2d");
  weight_ = std::move(w.weight);
  weight_scales_ = std::move(w.scales);
  bias_ = std::move(w.bias);
  if (w.dequantized.defined()) {
    in_float_ = std::make_unique<const PackedConv2d>(w.dequantized, bias_, params_, ConvEpilogue{});
  }
}

PackedQuantizedConv2d::~PackedQuantizedConv2d() = default;

void PackedQuantizedConv2d::set_layouts(ConvLayouts layouts) {
  XPORT_CHECK(takes_layouts() || (!layouts.src_nhwc && !layouts.residual_nhwc &&
                                  !layouts.dst_nhwc),
              Internal, "PackedQuantizedConv2d::set_layouts: channels-last tensors need static "
              "quantization on oneDNN's integer kernels");
  XPORT_CHECK(!layouts.residual_nhwc || (requantize_ && requantize_->residual), Internal,
              "PackedQuantizedConv2d::set_layouts: no residual to lay out");
  layouts_ = layouts;
}

std::shared_ptr<const PackedQuantizedConv2d::Primitive> PackedQuantizedConv2d::primitive_for(
    const std::vector<int64_t>& in_sizes, const std::vector<int64_t>& out_sizes,
    DType input_dtype, float input_scale, int64_t input_zero_point) const {
  std::vector<int64_t> key = in_sizes;
  key.push_back(static_cast<int64_t>(input_dtype));
  // A primitive with its scales built in: one per input scale (static quantization has one),
  // and without a zero point where it is 0 (oneDNN's fastest kernels take none).
  if (fixed_input_scale_) {
    key.push_back(static_cast<int64_t>(std::bit_cast<uint32_t>(input_scale)));
    key.push_back(input_zero_point == 0 ? 0 : 1);
  }
  // Made under the lock: two threads meeting a new shape make one primitive, not two (a
  // duplicate destroyed while its twin runs is what ThreadSanitizer flags in oneDNN).
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = primitives_.find(key); it != primitives_.end()) return it->second;
  using Tag = memory::format_tag;
  using DT = memory::data_type;
  const std::vector<int64_t> w = weight_.int_sizes();
  const int64_t g = params_.groups;
  const memory::dims src_dims(in_sizes.begin(), in_sizes.end());
  const memory::dims dst_dims(out_sizes.begin(), out_sizes.end());
  const memory::dims wei_dims = g == 1 ? memory::dims{w[0], w[1], w[2], w[3]}
                                       : memory::dims{g, w[0] / g, w[1], w[2], w[3]};
  const DT src_type = input_dtype == DType::UInt8 ? DT::u8 : DT::s8;
  const auto tag = [](bool nhwc) { return nhwc ? Tag::nhwc : Tag::nchw; };
  auto p = std::make_shared<Primitive>();
  p->user_src_md = memory::desc(src_dims, src_type, tag(layouts_.src_nhwc));
  // oneDNN counts dilation from 0; the right padding is the left one (ATen's output size).
  const memory::dims strides = {params_.stride[0], params_.stride[1]};
  const memory::dims dilates = {params_.dilation[0] - 1, params_.dilation[1] - 1};
  const memory::dims pad = {params_.padding[0], params_.padding[1]};
  // oneDNN 2's integer convolutions take no scales given at run time: they give the int32 sums,
  // which the reorder to NCHW scales (it does take them). With a fixed input scale the scales
  // are built in (and a requantizing one's residual, ReLU and output zero point), and the bias
  // (which oneDNN 2 adds before the scales) divided by them.
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  p->src_zero_point = !fixed_input_scale_ || input_zero_point != 0;
  if (p->src_zero_point) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  DT dst_type = DT::s32;
  memory::desc bias_md;
  if (fixed_input_scale_) {
    // Into output steps, or the convolution's own steps when it is quantized first.
    const auto inv_out =
        !requantize_ ? 1.0f
                     : static_cast<float>(1.0 / (requantize_->quantize_conv
                                                     ? requantize_->conv_scale
                                                     : requantize_->output_scale));
    std::vector<float> scales(weight_scales_.size());
    p->bias.resize(weight_scales_.size());
    for (size_t c = 0; c < scales.size(); ++c) {
      const float to_float = input_scale * weight_scales_[c];
      scales[c] = requantize_ ? to_float * inv_out : to_float;
      p->bias[c] = bias_.defined() ? static_cast<const float*>(bias_.raw_data())[c] / to_float
                                   : 0.0f;
    }
    attr.set_output_scales(1 << 1, scales);
    dst_type = DT::f32;
    bias_md = memory::desc({w[0]}, DT::f32, Tag::a);
  }
  if (requantize_) {
    attr.set_zero_points(DNNL_ARG_DST, 0,
                         {static_cast<int32_t>(requantize_->output_zero_point)});
    dnnl::post_ops ops;
    if (requantize_->quantize_conv) {
      // round(v) clipped to the conv dtype's range less its zero point, then in output steps:
      // the clip's own scale multiplies its result, one post-op fewer than a linear after it.
      const bool u8 = requantize_->conv_dtype == DType::UInt8;
      const auto zero_point = static_cast<float>(requantize_->conv_zero_point);
      ops.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
      ops.append_eltwise(static_cast<float>(requantize_->conv_scale / requantize_->output_scale),
                         dnnl::algorithm::eltwise_clip, (u8 ? 0.f : -128.f) - zero_point,
                         (u8 ? 255.f : 127.f) - zero_point);
    }
    // The residual in output steps: (residual - its zero point) * its scale / the output's.
    if (requantize_->residual) {
      ops.append_sum(static_cast<float>(requantize_->residual_scale / requantize_->output_scale),
                     static_cast<int32_t>(requantize_->residual_zero_point));
    }
    if (requantize_->relu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    attr.set_post_ops(ops);
    dst_type = requantize_->dtype == DType::UInt8 ? DT::u8 : DT::s8;
  }
  p->user_dst_md =
      memory::desc(dst_dims, requantize_ ? dst_type : DT::f32, tag(layouts_.dst_nhwc));
  const dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
          memory::desc(src_dims, src_type, Tag::any), memory::desc(wei_dims, DT::s8, Tag::any),
          bias_md, memory::desc(dst_dims, dst_type, Tag::any), strides, dilates, pad, pad),
      attr, onednn_engine());
  note_implementation(pd);
  p->conv = dnnl::convolution_forward(pd);
  p->src_md = pd.src_desc();
  p->dst_md = pd.dst_desc();
  p->scratch_md = pd.scratchpad_desc();
  p->weights_md = pd.weights_desc();
  dnnl::engine& eng = onednn_engine();
  if (p->src_md != p->user_src_md) {
    p->src_reorder = reorder_between(p->user_src_md, p->src_md, p->src_reorder_scratch_md);
  }
  if (!fixed_input_scale_) {
    dnnl::primitive_attr scaled;
    scaled.set_output_scales(1 << 1, {DNNL_RUNTIME_F32_VAL});
    p->dst_reorder =
        reorder_between(p->dst_md, p->user_dst_md, p->dst_reorder_scratch_md, scaled);
  } else if (p->dst_md != p->user_dst_md) {
    p->dst_reorder = reorder_between(p->dst_md, p->user_dst_md, p->dst_reorder_scratch_md);
  }
  if (requantize_ && requantize_->residual) {
    p->user_residual_md = memory::desc(dst_dims, dst_type, tag(layouts_.residual_nhwc));
    p->residual_reorder =
        reorder_between(p->user_residual_md, p->dst_md, p->residual_reorder_scratch_md);
  }
  for (const auto& [other_key, other] : primitives_) {
    if (other->weights_md == p->weights_md) p->weights = other->weights;
  }
  if (!p->weights) {
    p->weights = Storage::allocate(static_cast<int64_t>(p->weights_md.get_size()));
    const std::vector<int64_t> ws = weight_.int_strides();
    const memory::dims user_strides =
        g == 1 ? memory::dims{ws[0], ws[1], ws[2], ws[3]}
               : memory::dims{ws[0] * (w[0] / g), ws[0], ws[1], ws[2], ws[3]};
    memory user(memory::desc(wei_dims, DT::s8, user_strides), eng, weight_.raw_data());
    reorder_now(user, memory(p->weights_md, eng, p->weights->data()));
    if (primitives_.empty()) detail::release_file_pages(weight_);
  }
  return primitives_.emplace(std::move(key), std::move(p)).first->second;
}

// PyTorch's reference: the input dequantized, the float convolution, then [its quantize and
// dequantize,] the residual, ReLU and quantize when it requantizes.
void PackedQuantizedConv2d::run_in_float(const Tensor& input, double input_scale,
                                         int64_t input_zero_point, const Tensor& residual,
                                         const Tensor& out) const {
  Tensor x = Tensor::empty_contiguous(input.int_sizes(), DType::Float32);
  dequantize_per_tensor_out(input, input_scale, input_zero_point, x);
  if (!requantize_) {
    in_float_->run(x, Tensor(), out);
    return;
  }
  Tensor y = Tensor::empty_contiguous(out.int_sizes(), DType::Float32);
  in_float_->run(x, Tensor(), y);
  if (requantize_->quantize_conv) {
    const bool u8 = requantize_->conv_dtype == DType::UInt8;
    const Tensor q = Tensor::empty_contiguous(out.int_sizes(), requantize_->conv_dtype);
    quantize_per_tensor_out(y, requantize_->conv_scale, requantize_->conv_zero_point,
                            u8 ? 0 : -128, u8 ? 255 : 127, q);
    dequantize_per_tensor_out(q, requantize_->conv_scale, requantize_->conv_zero_point, y);
  }
  auto* d = y.mutable_data<float>();
  if (requantize_->residual) {
    Tensor r = Tensor::empty_contiguous(out.int_sizes(), DType::Float32);
    dequantize_per_tensor_out(residual, requantize_->residual_scale,
                              requantize_->residual_zero_point, r);
    const float* rd = r.data<float>();
    for (int64_t i = 0; i < y.int_numel(); ++i) d[i] += rd[i];
  }
  if (requantize_->relu) vec::relu(d, d, y.int_numel());
  const bool u8 = requantize_->dtype == DType::UInt8;
  quantize_per_tensor_out(y, requantize_->output_scale, requantize_->output_zero_point,
                          u8 ? 0 : -128, u8 ? 255 : 127, out);
}

void PackedQuantizedConv2d::run(const Tensor& input, double input_scale,
                                int64_t input_zero_point, const Tensor& residual,
                                const Tensor& out) const {
  const DType out_dtype = requantize_ ? requantize_->dtype : DType::Float32;
  const bool has_residual = requantize_ && requantize_->residual;
  XPORT_CHECK(input.dim() == 4 && (input.dtype() == DType::UInt8 || input.dtype() == DType::Int8) &&
                  out.dtype() == out_dtype && out.is_contiguous() &&
                  residual.defined() == has_residual &&
                  (!has_residual || (residual.dtype() == out_dtype && residual.is_contiguous() &&
                                     residual.int_sizes() == out.int_sizes())),
              Internal, "PackedQuantizedConv2d::run: expected a uint8 or int8 input [N, C, H, W], "
              "a contiguous output of ", dtype_name(out_dtype), " and ",
              has_residual ? "a residual of its shape and dtype" : "no residual");
  if (in_float_) {
    run_in_float(input, input_scale, input_zero_point, residual, out);
    return;
  }
  if (input.int_numel() == 0 || out.int_numel() == 0) return;
  const Tensor x = contiguous_as(input, input.dtype());
  const std::shared_ptr<const Primitive> p =
      primitive_for(input.int_sizes(), out.int_sizes(), input.dtype(),
                    static_cast<float>(input_scale), input_zero_point);
  auto zero_point = static_cast<int32_t>(input_zero_point);
  dnnl::engine& eng = onednn_engine();
  dnnl::stream stream(eng);
  using DT = memory::data_type;
  // Staging for the layouts oneDNN's kernels read, when they differ from the ones passed.
  thread_local ScratchBuffer staging_src, staging_dst, scratch, reorder_scratch;
  const auto scratch_of = [&](const memory::desc& md) {
    return memory(md, eng, reorder_scratch.get(md.get_size()));
  };
  memory user_src(p->user_src_md, eng, x.raw_data());
  memory user_dst(p->user_dst_md, eng, out.raw_data());
  memory src = p->src_reorder ? memory(p->src_md, eng, staging_src.get(p->src_md.get_size()))
                              : user_src;
  memory dst = p->dst_reorder ? memory(p->dst_md, eng, staging_dst.get(p->dst_md.get_size()))
                              : user_dst;
  if (p->src_reorder) {
    p->src_reorder->execute(stream, {{DNNL_ARG_FROM, user_src},
                                     {DNNL_ARG_TO, src},
                                     {DNNL_ARG_SCRATCHPAD, scratch_of(p->src_reorder_scratch_md)}});
  }
  // The sum post-op adds what dst holds: the residual, unless the output lies over it already.
  if (has_residual && (residual.raw_data() != out.raw_data() || p->dst_reorder ||
                       p->user_residual_md != p->dst_md)) {
    memory user_residual(p->user_residual_md, eng, residual.raw_data());
    p->residual_reorder->execute(
        stream, {{DNNL_ARG_FROM, user_residual},
                 {DNNL_ARG_TO, dst},
                 {DNNL_ARG_SCRATCHPAD, scratch_of(p->residual_reorder_scratch_md)}});
  }
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src},
      {DNNL_ARG_WEIGHTS, memory(p->weights_md, eng, p->weights->data())},
      {DNNL_ARG_DST, dst},
      {DNNL_ARG_SCRATCHPAD, memory(p->scratch_md, eng, scratch.get(p->scratch_md.get_size()))}};
  if (p->src_zero_point) {
    args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
                 memory({{1}, DT::s32, memory::format_tag::a}, eng, &zero_point));
  }
  std::vector<float> scales;
  if (fixed_input_scale_) {
    args.emplace(DNNL_ARG_BIAS,
                 memory({{static_cast<int64_t>(p->bias.size())}, DT::f32, memory::format_tag::a},
                        eng, const_cast<float*>(p->bias.data())));
  } else {
    scales.resize(weight_scales_.size());
    for (size_t c = 0; c < scales.size(); ++c) {
      scales[c] = static_cast<float>(input_scale) * weight_scales_[c];
    }
  }
  p->conv.execute(stream, args);
  if (p->dst_reorder) {
    std::unordered_map<int, memory> reorder_args = {
        {DNNL_ARG_FROM, dst},
        {DNNL_ARG_TO, user_dst},
        {DNNL_ARG_SCRATCHPAD, scratch_of(p->dst_reorder_scratch_md)}};
    if (!fixed_input_scale_) {
      reorder_args.emplace(
          DNNL_ARG_ATTR_OUTPUT_SCALES,
          memory({{static_cast<int64_t>(scales.size())}, DT::f32, memory::format_tag::a}, eng,
                 scales.data()));
    }
    p->dst_reorder->execute(stream, reorder_args);
  }
  stream.wait();
  staging_src.trim();
  staging_dst.trim();
  scratch.trim();
  reorder_scratch.trim();
  // The bias after the scales (oneDNN 2's integer convolutions add theirs before them).
  if (!fixed_input_scale_ && bias_.defined()) {
    const std::vector<int64_t> o = out.int_sizes();
    const int64_t planes = o[0] * o[1], plane = o[2] * o[3];
    const auto* b = static_cast<const float*>(bias_.raw_data());
    auto* y = static_cast<float*>(out.raw_data());
    parallel_for(0, planes, std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(plane, 1)),
                 [&](int64_t p0, int64_t p1) {
                   for (int64_t q = p0; q < p1; ++q) {
                     const float add = b[q % o[1]];
                     for (int64_t i = q * plane; i < (q + 1) * plane; ++i) y[i] += add;
                   }
                 });
  }
}

}  // namespace xport::kernels::cpu
