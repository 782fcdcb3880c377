#include "kernels/cpu/quantized_linear.h"

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

struct PackedQuantizedLinear::Packed {
  memory::desc md;
  std::shared_ptr<Storage> data;
};

struct PackedQuantizedLinear::Primitive {
  dnnl::matmul matmul;
  memory::desc src_md, dst_md, scratch_md;
  std::shared_ptr<const Packed> weights;
  std::vector<float> bias;  // a fixed input scale's: the bias divided by each column's scale
};

PackedQuantizedLinear::PackedQuantizedLinear(Tensor weight, const Tensor& weight_scales,
                                             Tensor bias, bool fixed_input_scale,
                                             std::optional<LinearRequantize> requantize)
    : fixed_input_scale_(fixed_input_scale || requantize), requantize_(requantize) {
  IntegerWeights w = integer_weights(std::move(weight), weight_scales, std::move(bias), 2,
                                     "PackedQuantizedLinear");
  weight_ = std::move(w.weight);
  weight_scales_ = std::move(w.scales);
  bias_ = std::move(w.bias);
  if (w.dequantized.defined()) {
    // Seen as [K, N], which PackedLinear takes (a view: the tensor layer's, not the ops').
    const int64_t n = weight_.int_size(0), k = weight_.int_size(1);
    TensorMeta transposed = w.dequantized.meta();
    transposed.sizes = {SymInt(k), SymInt(n)};
    transposed.strides = {SymInt(1), SymInt(k)};
    in_float_ = std::make_unique<const PackedLinear>(
        Tensor::make(w.dequantized.storage(), transposed), bias_,
        requantize_ ? requantize_->activation : LinearActivation::None);
  }
}

PackedQuantizedLinear::~PackedQuantizedLinear() = default;

std::shared_ptr<const PackedQuantizedLinear::Primitive> PackedQuantizedLinear::primitive_for(
    int64_t rows, DType input_dtype, float input_scale, int64_t input_zero_point) const {
  std::vector<int64_t> key = {rows, static_cast<int64_t>(input_dtype)};
  if (fixed_input_scale_) {
    key.push_back(static_cast<int64_t>(std::bit_cast<uint32_t>(input_scale)));
    key.push_back(input_zero_point);
  }
  // Made under the lock: two threads meeting a new shape make one primitive, not two.
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = primitives_.find(key); it != primitives_.end()) return it->second;
  const int64_t n = weight_.int_size(0), k = weight_.int_size(1);
  using Tag = memory::format_tag;
  using DT = memory::data_type;
  auto p = std::make_shared<Primitive>();
  p->src_md = memory::desc({rows, k}, input_dtype == DType::UInt8 ? DT::u8 : DT::s8, Tag::ab);
  const DT dst_type = !requantize_                          ? DT::f32
                     : requantize_->dtype == DType::UInt8 ? DT::u8
                                                          : DT::s8;
  p->dst_md = memory::desc({rows, n}, dst_type, Tag::ab);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  memory::desc bias_md;
  if (fixed_input_scale_) {
    // The scales, zero point and bias built in (oneDNN 2 adds the bias before the scales).
    std::vector<float> scales(weight_scales_.size());
    p->bias.resize(scales.size());
    for (size_t c = 0; c < scales.size(); ++c) {
      scales[c] = input_scale * weight_scales_[c];
      p->bias[c] = bias_.defined() ? static_cast<const float*>(bias_.raw_data())[c] / scales[c]
                                   : 0.0f;
    }
    attr.set_output_scales(1 << 1, scales);
    if (input_zero_point != 0) {
      attr.set_zero_points(DNNL_ARG_SRC, 0, {static_cast<int32_t>(input_zero_point)});
    }
    bias_md = memory::desc({1, n}, DT::f32, Tag::ab);
    if (requantize_) {
      dnnl::post_ops ops;
      if (requantize_->activation != LinearActivation::None) {
        ops.append_eltwise(1.f, eltwise_algorithm(requantize_->activation), 0.f, 0.f);
      }
      ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear,
                         static_cast<float>(1.0 / requantize_->output_scale), 0.f);
      attr.set_post_ops(ops);
      attr.set_zero_points(DNNL_ARG_DST, 0,
                           {static_cast<int32_t>(requantize_->output_zero_point)});
    }
  } else {
    // Scales per output column and the input's zero point, given at each run.
    attr.set_output_scales(1 << 1, {DNNL_RUNTIME_F32_VAL});
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  }
  const dnnl::matmul::primitive_desc pd(
      dnnl::matmul::desc(p->src_md, memory::desc({k, n}, DT::s8, Tag::any), bias_md, p->dst_md),
      attr, onednn_engine());
  note_implementation(pd);
  p->matmul = dnnl::matmul(pd);
  p->scratch_md = pd.scratchpad_desc();
  const memory::desc wei_md = pd.weights_desc();
  if (packed_ && packed_->md == wei_md) {
    p->weights = packed_;
  } else {
    auto packed = std::make_shared<Packed>();
    packed->md = wei_md;
    packed->data = Storage::allocate(static_cast<int64_t>(wei_md.get_size()));
    // The [N, K] weight seen as [K, N].
    const std::vector<int64_t> strides = weight_.int_strides();
    memory user(memory::desc({k, n}, DT::s8, {strides[1], strides[0]}), onednn_engine(),
                weight_.raw_data());
    reorder_now(user, memory(wei_md, onednn_engine(), packed->data->data()));
    if (!packed_) detail::release_file_pages(weight_);
    packed_ = packed;
    p->weights = std::move(packed);
  }
  return primitives_.emplace(std::move(key), std::move(p)).first->second;
}

void PackedQuantizedLinear::run_in_float(const Tensor& input, double input_scale,
                                         int64_t input_zero_point, const Tensor& out) const {
  Tensor x = Tensor::empty_contiguous(input.int_sizes(), DType::Float32);
  dequantize_per_tensor_out(input, input_scale, input_zero_point, x);
  if (!requantize_) {
    in_float_->run(x, out);
    return;
  }
  Tensor y = Tensor::empty_contiguous(out.int_sizes(), DType::Float32);
  in_float_->run(x, y);
  const bool u8 = requantize_->dtype == DType::UInt8;
  quantize_per_tensor_out(y, requantize_->output_scale, requantize_->output_zero_point,
                          u8 ? 0 : -128, u8 ? 255 : 127, out);
}

void PackedQuantizedLinear::run(const Tensor& input, double input_scale,
                                int64_t input_zero_point, const Tensor& out) const {
  const DType out_dtype = requantize_ ? requantize_->dtype : DType::Float32;
  XPORT_CHECK(input.dim() == 2 && input.int_size(1) == weight_.int_size(1) &&
                  (input.dtype() == DType::UInt8 || input.dtype() == DType::Int8) &&
                  out.dtype() == out_dtype && out.is_contiguous(),
              Internal, "PackedQuantizedLinear::run: expected a uint8 or int8 input [M, ",
              weight_.int_size(1), "] and a contiguous output of ", dtype_name(out_dtype));
  const int64_t rows = input.int_size(0);
  if (rows == 0) return;
  if (in_float_) {
    run_in_float(input, input_scale, input_zero_point, out);
    return;
  }
  const Tensor x = contiguous_as(input, input.dtype());
  const auto sx = static_cast<float>(input_scale);
  const std::shared_ptr<const Primitive> p =
      primitive_for(rows, input.dtype(), sx, input_zero_point);
  thread_local ScratchBuffer scratch;
  dnnl::engine& eng = onednn_engine();
  dnnl::stream stream(eng);
  using DT = memory::data_type;
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(p->src_md, eng, x.raw_data())},
      {DNNL_ARG_WEIGHTS, memory(p->weights->md, eng, p->weights->data->data())},
      {DNNL_ARG_DST, memory(p->dst_md, eng, out.raw_data())},
      {DNNL_ARG_SCRATCHPAD, memory(p->scratch_md, eng, scratch.get(p->scratch_md.get_size()))}};
  // PyTorch's reference dequantizes with float32 scales: input_scale as float, times each
  // column's.
  std::vector<float> scales;
  auto zero_point = static_cast<int32_t>(input_zero_point);
  if (fixed_input_scale_) {
    args.emplace(DNNL_ARG_BIAS,
                 memory({{1, static_cast<int64_t>(p->bias.size())}, DT::f32,
                         memory::format_tag::ab},
                        eng, const_cast<float*>(p->bias.data())));
  } else {
    scales.resize(weight_scales_.size());
    for (size_t c = 0; c < scales.size(); ++c) scales[c] = sx * weight_scales_[c];
    args.emplace(DNNL_ARG_ATTR_OUTPUT_SCALES,
                 memory({{static_cast<int64_t>(scales.size())}, DT::f32, memory::format_tag::a},
                        eng, scales.data()));
    args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
                 memory({{1}, DT::s32, memory::format_tag::a}, eng, &zero_point));
  }
  p->matmul.execute(stream, args);
  stream.wait();
  scratch.trim();
  // The bias after the scales (oneDNN 2's integer products add theirs before them).
  if (!fixed_input_scale_ && bias_.defined()) {
    const int64_t n = weight_.int_size(0);
    const auto* b = static_cast<const float*>(bias_.raw_data());
    auto* y = static_cast<float*>(out.raw_data());
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 14) / n);
    parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) vec::add(y + r * n, b, y + r * n, n, 1.0f);
    });
  }
}

}  // namespace xport::kernels::cpu
