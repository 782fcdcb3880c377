#include "kernels/cpu/conv.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/onednn.h"
#include "kernels/cpu/parallel.h"
#include "tensor/file_mapping.h"

namespace xport::kernels::cpu {
namespace {

// Sizes of one convolution, all the primitive depends on.
struct ConvShape {
  int64_t n, c, h, w, o, kh, kw, oh, ow;
  Conv2dParams p;
  bool bias;
  ConvEpilogue epilogue = {};
  ConvLayouts layouts = {};
  std::array<int64_t, 22> key() const {
    return {n,
            c,
            h,
            w,
            o,
            kh,
            kw,
            oh,
            ow,
            p.stride[0],
            p.stride[1],
            p.padding[0],
            p.padding[1],
            p.dilation[0],
            p.dilation[1],
            p.groups,
            bias ? 1 : 0,
            epilogue.residual ? 1 : 0,
            epilogue.relu ? 1 : 0,
            layouts.src_nhwc ? 1 : 0,
            layouts.residual_nhwc ? 1 : 0,
            layouts.dst_nhwc ? 1 : 0};
  }
};

// ---- float32 through oneDNN ---------------------------------------------------------------

using dnnl::memory;
using Tag = memory::format_tag;

dnnl::engine& engine() { return onednn_engine(); }

// The channel block of the layout oneDNN's direct convolution takes on this CPU (16 with
// AVX-512, 8 with AVX2 and SSE4.1), asked of oneDNN once with format_tag::any on a typical
// layer (64 channels, 3x3, 56x56); 0 when it takes an unblocked layout. Never fixed for one ISA:
// a block its kernels lack sends every convolution to its reference code.
int64_t channel_block() {
  static const int64_t block = [] {
    const auto f32 = memory::data_type::f32;
    const memory::dims act = {1, 64, 56, 56};
    const dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
            memory::desc(act, f32, Tag::any), memory::desc({64, 64, 3, 3}, f32, Tag::any),
            memory::desc(), memory::desc(act, f32, Tag::any), {1, 1}, {0, 0}, {1, 1}, {1, 1}),
        engine());
    const dnnl_memory_desc_t& src = pd.src_desc().data;
    const dnnl_blocking_desc_t& blocking = src.format_desc.blocking;
    const bool channel_blocked =
        src.format_kind == dnnl_blocked && blocking.inner_nblks == 1 && blocking.inner_idxs[0] == 1;
    return channel_blocked ? static_cast<int64_t>(blocking.inner_blks[0]) : int64_t{0};
  }();
  return block;
}

// The layout a tensor passed between packed convolutions keeps (ConvLayouts), decided by its
// own dims so that whoever writes it and whoever reads it agree: oneDNN's blocked layout for
// this CPU (nChw16c or nChw8c: its direct kernels beat the channels-last ones at batch 8, and
// its Winograd kernels take only blocked tensors), channels-last when the channels do not fill
// whole blocks (the buffer then keeps exactly the plain tensor's size).
Tag passed_tag(const memory::dims& dims) {
  const int64_t block = passed_channel_block(dims);
  return block == 16 ? Tag::nChw16c : block == 8 ? Tag::nChw8c : Tag::nhwc;
}

// 3x3 stride-1 convolutions on packed weights with outputs of at least 14 x 14 try oneDNN's
// Winograd kernels (F(4x4, 3x3) on ResNet-50's shapes: 4x fewer multiplications), its logits
// within 1e-6 of the direct algorithm's. The weights are transformed once, when packed, into
// 4x their bytes; smaller outputs (ResNet-50's last stage: most of its 3x3 weights) gain
// little from it, so they keep the direct kernels and their memory. On 2 Zen 4 cores,
// ResNet-50 at batch 8: 309 -> 264 ms, peak RSS 381 -> 492 MB (all 3x3 layers: 275 ms, 623 MB).
constexpr int64_t kWinogradMinOutputPixels = 14 * 14;

bool try_winograd(const ConvShape& s, bool packed_weights, bool blocked) {
  return packed_weights && blocked && s.p.groups == 1 && s.kh == 3 && s.kw == 3 &&
         s.p.stride[0] == 1 && s.p.stride[1] == 1 && s.p.dilation[0] == 1 &&
         s.p.dilation[1] == 1 && s.oh * s.ow >= kWinogradMinOutputPixels;
}

// A created convolution primitive with the reorders between our plain NCHW/OIHW tensors and the
// layouts oneDNN picked for this shape.
struct ConvPlan {
  dnnl::convolution_forward conv;
  memory::desc src_md, wei_md, dst_md, bias_md, scratch_md;
  memory::desc user_src_md, user_wei_md, user_dst_md;
  std::optional<dnnl::reorder> src_reorder, wei_reorder, dst_reorder;
  /// With a residual epilogue: brings the residual into dst's layout (the sum post-op adds to
  /// what dst holds).
  std::optional<dnnl::reorder> residual_reorder;
  memory::desc residual_md;
  ConvEpilogue epilogue = {};
  /// Whether the primitive applies the epilogue as post-ops. oneDNN's GEMM-based convolution
  /// (the plain layout) runs post-ops 2x slower than our own pass after it (ResNet-50's 1x1
  /// convolutions, measured), so there the epilogue is ours.
  bool epilogue_in_primitive = false;
};

// out = relu?(out + residual?) in one pass over memory.
void apply_epilogue(const Tensor& out, const Tensor& residual, bool relu) {
  if (!residual.defined() && !relu) return;
  float* y = out.mutable_data<float>();
  const float* res = residual.defined() ? residual.data<float>() : nullptr;
  parallel_for(0, out.int_numel(), 1 << 14, [&](int64_t lo, int64_t hi) {
    if (res != nullptr && relu) {
      for (int64_t i = lo; i < hi; ++i) y[i] = std::max(y[i] + res[i], 0.f);
    } else if (res != nullptr) {
      for (int64_t i = lo; i < hi; ++i) y[i] += res[i];
    } else {
      for (int64_t i = lo; i < hi; ++i) y[i] = std::max(y[i], 0.f);
    }
  });
}

// Whether to let oneDNN pick blocked layouts (format_tag::any, paying reorders of src, dst and
// weights on every call) rather than run on plain NCHW/OIHW (its im2col + GEMM path). Measured on
// ResNet-50 layers: blocked wins for spatial kernels, plain wins for 1x1 kernels (no im2col) and
// when the weights dwarf the output (512x7x7: the weight reorder costs more than it saves).
// Grouped convolutions always go blocked (oneDNN's GEMM path runs them group by group). With
// few input channels (a network's stem) the source stays NCHW: oneDNN then picks a direct kernel
// that reads it as is, and its blocked output reorders back faster than a channels-last one.
// With weights packed once (PackedConv2d), the weight reorder is gone and only the 1x1 rule
// remains.
bool use_blocked_layout(const ConvShape& s, bool packed_weights) {
  if (s.p.groups > 1) return true;
  if (s.kh == 1 && s.kw == 1) return false;
  return packed_weights || s.c * s.kh * s.kw <= 32 * s.oh * s.ow;
}

std::shared_ptr<const ConvPlan> make_plan(const ConvShape& s, bool packed_weights) {
  const int64_t g = s.p.groups;
  const ConvLayouts& io = s.layouts;
  // A tensor passed channels-last means the blocked convolution (which reads and writes it as
  // is): no reorders at all.
  const bool blocked =
      io.src_nhwc || io.residual_nhwc || io.dst_nhwc || use_blocked_layout(s, packed_weights);
  const bool blocked_src = blocked && s.c / g >= 8;
  const memory::dims src_dims = {s.n, s.c, s.h, s.w};
  const memory::dims dst_dims = {s.n, s.o, s.oh, s.ow};
  const memory::dims wei_dims =
      g == 1 ? memory::dims{s.o, s.c, s.kh, s.kw} : memory::dims{g, s.o / g, s.c / g, s.kh, s.kw};
  const auto f32 = memory::data_type::f32;
  auto plan = std::make_shared<ConvPlan>();
  plan->user_src_md =
      memory::desc(src_dims, f32, io.src_nhwc ? passed_tag(src_dims) : Tag::nchw);
  plan->user_dst_md =
      memory::desc(dst_dims, f32, io.dst_nhwc ? passed_tag(dst_dims) : Tag::nchw);
  plan->user_wei_md = memory::desc(wei_dims, f32, g == 1 ? Tag::oihw : Tag::goihw);
  const memory::desc bias_md = s.bias ? memory::desc({s.o}, f32, Tag::x) : memory::desc();
  // oneDNN counts dilation from 0 (no dilation); its output size rounds down like ATen's, so
  // the right padding is the left one.
  const memory::dims strides = {s.p.stride[0], s.p.stride[1]};
  const memory::dims dilates = {s.p.dilation[0] - 1, s.p.dilation[1] - 1};
  const memory::dims pad_l = {s.p.padding[0], s.p.padding[1]};
  const memory::dims pad_r = pad_l;
  // Passed tensors are read and written where they lie (`as_passed`), unless oneDNN has only its
  // reference code for their layout on this CPU (channels-last below AVX-512): then it picks
  // its own, with reorders from and to the passed one.
  const auto describe = [&](dnnl::algorithm algorithm, bool as_passed) {
    const auto any = [&](const memory::dims& dims) { return memory::desc(dims, f32, Tag::any); };
    const bool src_as_given = io.src_nhwc ? as_passed : !blocked_src;
    const bool dst_as_given = io.dst_nhwc ? as_passed : !blocked;
    return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm,
                                           src_as_given ? plan->user_src_md : any(src_dims),
                                           blocked ? any(wei_dims) : plan->user_wei_md, bias_md,
                                           dst_as_given ? plan->user_dst_md : any(dst_dims),
                                           strides, dilates, pad_l, pad_r);
  };
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  plan->epilogue = s.epilogue;
  plan->epilogue_in_primitive = blocked && (s.epilogue.residual || s.epilogue.relu);
  if (plan->epilogue_in_primitive) {
    dnnl::post_ops ops;
    if (s.epilogue.residual) ops.append_sum(1.f);
    if (s.epilogue.relu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    attr.set_post_ops(ops);
  }
  const auto create = [&](bool as_passed) {
    if (try_winograd(s, packed_weights, blocked)) {
      try {
        return dnnl::convolution_forward::primitive_desc(
            describe(dnnl::algorithm::convolution_winograd, as_passed), attr, engine());
      } catch (const dnnl::error&) {
        // No Winograd kernel for this machine or shape: the direct one below.
      }
    }
    return dnnl::convolution_forward::primitive_desc(
        describe(dnnl::algorithm::convolution_direct, as_passed), attr, engine());
  };
  dnnl::convolution_forward::primitive_desc pd = create(true);
  if (is_reference_implementation(pd) && (io.src_nhwc || io.dst_nhwc)) pd = create(false);
  note_implementation(pd);
  plan->conv = dnnl::convolution_forward(pd);
  plan->src_md = pd.src_desc();
  plan->wei_md = pd.weights_desc();
  plan->dst_md = pd.dst_desc();
  plan->bias_md = pd.bias_desc();
  plan->scratch_md = pd.scratchpad_desc();
  auto reorder = [](const memory::desc& from, const memory::desc& to) {
    const dnnl::reorder::primitive_desc reorder_pd(engine(), from, engine(), to);
    note_implementation(reorder_pd);
    return dnnl::reorder(reorder_pd);
  };
  if (plan->src_md != plan->user_src_md)
    plan->src_reorder = reorder(plan->user_src_md, plan->src_md);
  if (plan->wei_md != plan->user_wei_md)
    plan->wei_reorder = reorder(plan->user_wei_md, plan->wei_md);
  if (plan->dst_md != plan->user_dst_md)
    plan->dst_reorder = reorder(plan->dst_md, plan->user_dst_md);
  if (plan->epilogue_in_primitive && s.epilogue.residual) {
    // Copies (or converts) the residual into the memory the convolution writes.
    plan->residual_md =
        memory::desc(dst_dims, f32, io.residual_nhwc ? passed_tag(dst_dims) : Tag::nchw);
    plan->residual_reorder = reorder(plan->residual_md, plan->dst_md);
  }
  return plan;
}

// Creating a primitive costs about a millisecond; plans are kept per shape.
std::shared_ptr<const ConvPlan> find_plan(const ConvShape& s) {
  static std::mutex mutex;
  static std::map<std::array<int64_t, 22>, std::shared_ptr<const ConvPlan>> plans;
  const auto key = s.key();
  // Made under the lock: two threads meeting a new shape make one primitive, not two (a
  // duplicate destroyed while its twin runs is what ThreadSanitizer flags in oneDNN).
  std::lock_guard<std::mutex> lock(mutex);
  auto it = plans.find(key);
  if (it != plans.end()) return it->second;
  return plans.emplace(key, make_plan(s, false)).first->second;
}

// Runs a plan. `packed_weights`, when given, already holds the weights in plan.wei_md's layout;
// `residual` (when the plan has a residual epilogue) is added before the activation.
// The same bytes in new storage, laid out as `t` (a channels-last result keeps its layout).
// `t` may sit at an offset in a larger buffer (the runtime's memory plan); the copy starts at 0.
Tensor byte_copy(const Tensor& t) {
  TensorMeta meta = t.meta();
  meta.storage_offset = 0;
  Tensor copy = Tensor::make(Storage::allocate(t.int_numel() * t.element_size()), meta);
  std::memcpy(copy.raw_data(), t.raw_data(), static_cast<size_t>(t.int_numel() * t.element_size()));
  return copy;
}

void execute_plan(const ConvPlan& plan, const Tensor& input, const Tensor& weight,
                  const void* packed_weights, const Tensor& bias, const Tensor& given_residual,
                  const Tensor& out) {
  // A result written over its residual (the runtime's fused_conv2d_) needs no copy when the
  // sum post-op reads the residual where the result goes; otherwise the residual is kept first.
  const bool over_residual =
      given_residual.defined() && given_residual.raw_data() == out.raw_data();
  const bool sums_in_place = plan.epilogue_in_primitive && !plan.dst_reorder &&
                             plan.residual_md == plan.dst_md;
  const Tensor residual =
      over_residual && !sums_in_place ? byte_copy(given_residual) : given_residual;
  thread_local ScratchBuffer src_buf, wei_buf, dst_buf, scratch_buf;
  dnnl::engine& eng = engine();
  dnnl::stream stream(eng);
  memory user_src(plan.user_src_md, eng, input.raw_data());
  memory user_wei(plan.user_wei_md, eng, weight.raw_data());
  memory user_dst(plan.user_dst_md, eng, out.raw_data());
  memory src = user_src, wei = user_wei, dst = user_dst;
  if (plan.src_reorder) {
    src = memory(plan.src_md, eng, src_buf.get(plan.src_md.get_size()));
    plan.src_reorder->execute(stream, user_src, src);
  }
  if (packed_weights != nullptr) {
    wei = memory(plan.wei_md, eng, const_cast<void*>(packed_weights));
  } else if (plan.wei_reorder) {
    wei = memory(plan.wei_md, eng, wei_buf.get(plan.wei_md.get_size()));
    plan.wei_reorder->execute(stream, user_wei, wei);
  }
  if (plan.dst_reorder) dst = memory(plan.dst_md, eng, dst_buf.get(plan.dst_md.get_size()));
  if (residual.defined() && plan.epilogue_in_primitive && !(over_residual && sums_in_place)) {
    if (plan.residual_md == plan.dst_md) {
      // Same layout: a parallel copy (oneDNN's reorder copies such tensors on one thread).
      const auto* from = static_cast<const char*>(residual.raw_data());
      auto* to = static_cast<char*>(dst.get_data_handle());
      parallel_for(0, static_cast<int64_t>(plan.dst_md.get_size()), int64_t{1} << 16,
                   [&](int64_t lo, int64_t hi) {
                     std::memcpy(to + lo, from + lo, static_cast<size_t>(hi - lo));
                   });
    } else {
      memory user_residual(plan.residual_md, eng, residual.raw_data());
      plan.residual_reorder->execute(stream, user_residual, dst);
    }
  }
  memory scratch(plan.scratch_md, eng, scratch_buf.get(plan.scratch_md.get_size()));
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src},
                                          {DNNL_ARG_WEIGHTS, wei},
                                          {DNNL_ARG_DST, dst},
                                          {DNNL_ARG_SCRATCHPAD, scratch}};
  if (bias.defined()) args.emplace(DNNL_ARG_BIAS, memory(plan.bias_md, eng, bias.raw_data()));
  plan.conv.execute(stream, args);
  if (plan.dst_reorder) plan.dst_reorder->execute(stream, dst, user_dst);
  stream.wait();
  for (ScratchBuffer* b : {&src_buf, &wei_buf, &dst_buf, &scratch_buf}) b->trim();
  if (!plan.epilogue_in_primitive && (plan.epilogue.residual || plan.epilogue.relu)) {
    apply_epilogue(out, residual, plan.epilogue.relu);
  }
}

// False when oneDNN has no implementation for the shape (the caller falls back to the loop).
bool conv2d_onednn(const ConvShape& s, const Tensor& input, const Tensor& weight,
                   const Tensor& bias, const Tensor& out) {
  std::shared_ptr<const ConvPlan> found;
  try {
    found = find_plan(s);
  } catch (const dnnl::error&) {
    return false;
  }
  execute_plan(*found, input, weight, nullptr, bias, Tensor(), out);
  return true;
}

// ---- the portable direct loop -------------------------------------------------------------

// Accumulates in Acc (double, or uint64 for integers so overflow wraps like C).
template <class T, class Acc>
void conv2d_loop(const ConvShape& s, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const Tensor& out) {
  const T* x = input.data<T>();
  const T* w = weight.data<T>();
  const T* b = s.bias ? bias.data<T>() : nullptr;
  T* y = out.mutable_data<T>();
  const int64_t cg = s.c / s.p.groups, og = s.o / s.p.groups;
  // Plain variables, not structured bindings: clang < 16 cannot capture bindings in the lambda.
  const int64_t sh = s.p.stride[0], sw = s.p.stride[1];
  const int64_t ph = s.p.padding[0], pw = s.p.padding[1];
  const int64_t dh = s.p.dilation[0], dw = s.p.dilation[1];
  parallel_for(0, s.n * s.o, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t idx = lo; idx < hi; ++idx) {
      const int64_t n = idx / s.o, o = idx % s.o, g = o / og;
      const T* xg = x + (n * s.c + g * cg) * s.h * s.w;
      const T* wo = w + o * cg * s.kh * s.kw;
      T* yo = y + idx * s.oh * s.ow;
      for (int64_t oh = 0; oh < s.oh; ++oh) {
        for (int64_t ow = 0; ow < s.ow; ++ow) {
          Acc acc = b ? static_cast<Acc>(b[o]) : Acc(0);
          for (int64_t c = 0; c < cg; ++c) {
            for (int64_t kh = 0; kh < s.kh; ++kh) {
              const int64_t ih = oh * sh - ph + kh * dh;
              if (ih < 0 || ih >= s.h) continue;
              for (int64_t kw = 0; kw < s.kw; ++kw) {
                const int64_t iw = ow * sw - pw + kw * dw;
                if (iw < 0 || iw >= s.w) continue;
                acc += static_cast<Acc>(xg[(c * s.h + ih) * s.w + iw]) *
                       static_cast<Acc>(wo[(c * s.kh + kh) * s.kw + kw]);
              }
            }
          }
          yo[oh * s.ow + ow] = static_cast<T>(acc);
        }
      }
    }
  });
}

}  // namespace

int64_t passed_channel_block(const std::vector<int64_t>& sizes) {
  const int64_t block = channel_block();
  return (block == 16 || block == 8) && sizes.at(1) % block == 0 ? block : sizes.at(1);
}

void conv2d_out(const Tensor& input, const Tensor& weight, const Tensor& bias,
                const Conv2dParams& params, const Tensor& out) {
  if (out.int_numel() == 0) return;
  const DType dt = out.dtype();
  const bool half = dt == DType::Float16 || dt == DType::BFloat16;
  const DType ct = half ? DType::Float32 : dt;
  const Tensor x = contiguous_as(input, ct);
  const Tensor w = contiguous_as(weight, ct);
  const Tensor b = bias.defined() ? contiguous_as(bias, ct) : Tensor();
  const Tensor y =
      out.is_contiguous() && !half ? out : Tensor::empty_contiguous(out.int_sizes(), ct);
  const std::vector<int64_t> xs = x.int_sizes(), ws = w.int_sizes(), ys = y.int_sizes();
  const ConvShape s{xs[0], xs[1], xs[2], xs[3],  ws[0],      ws[2],
                    ws[3], ys[2], ys[3], params, b.defined()};
  if (ct == DType::Float32) {
    if (s.c == 0 || !conv2d_onednn(s, x, w, b, y)) conv2d_loop<float, float>(s, x, w, b, y);
  } else if (ct == DType::Float64) {
    conv2d_loop<double, double>(s, x, w, b, y);
  } else {
    visit_dtype(ct, [&](auto v) {
      using T = decltype(v);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        conv2d_loop<T, uint64_t>(s, x, w, b, y);
      } else {
        XPORT_FAIL(InvalidInput, "conv2d: unsupported dtype ", dtype_name(ct));
      }
    });
  }
  if (!y.is_same(out)) copy_into(out, y);
}

// ---- convolution with constant weights -----------------------------------------------------

struct PackedConv2d::WeightCopy {
  memory::desc md;
  std::shared_ptr<Storage> data;
};

struct PackedConv2d::Packed {
  std::shared_ptr<const ConvPlan> plan;
  std::shared_ptr<Storage> weights;  // in plan->wei_md's layout; null when that is the plain one
};

PackedConv2d::PackedConv2d(Tensor weight, Tensor bias, Conv2dParams params, ConvEpilogue epilogue)
    : weight_(contiguous_as(weight, DType::Float32)),
      bias_(bias.defined() ? contiguous_as(bias, DType::Float32) : Tensor()),
      params_(params),
      epilogue_(epilogue) {
  XPORT_CHECK(weight_.dim() == 4, InvalidInput, "PackedConv2d: weight must be 4-D, got ",
              weight_.dim(), "-D");
}

PackedConv2d::~PackedConv2d() = default;

void PackedConv2d::set_layouts(ConvLayouts layouts) {
  std::lock_guard<std::mutex> lock(mutex_);
  layouts_ = layouts;
  packed_.clear();
  weight_copies_.clear();
}

std::shared_ptr<const PackedConv2d::Packed> PackedConv2d::packed_for(
    const std::vector<int64_t>& in_sizes, const std::vector<int64_t>& out_sizes) const {
  const std::vector<int64_t> ws = weight_.int_sizes();
  ConvShape s{in_sizes[0], in_sizes[1],  in_sizes[2],  in_sizes[3], ws[0],          ws[2],
              ws[3],       out_sizes[2], out_sizes[3], params_,     bias_.defined()};
  s.epilogue = epilogue_;
  s.layouts = layouts_;
  const auto key = s.key();
  // Made under the lock, as find_plan's.
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = packed_.find(key); it != packed_.end()) return it->second;
  auto packed = std::make_shared<Packed>();
  packed->plan = make_plan(s, true);  // throws dnnl::error when oneDNN has no implementation
  if (packed->plan->wei_reorder) {
    // Other input shapes (another batch size) usually want the same weight layout: one copy.
    for (const auto& copy : weight_copies_) {
      if (copy->md == packed->plan->wei_md) packed->weights = copy->data;
    }
    if (!packed->weights) {
      packed->weights = Storage::allocate(static_cast<int64_t>(packed->plan->wei_md.get_size()));
      dnnl::stream stream(engine());
      memory user_wei(packed->plan->user_wei_md, engine(), weight_.raw_data());
      memory wei(packed->plan->wei_md, engine(), packed->weights->data());
      packed->plan->wei_reorder->execute(stream, user_wei, wei);
      stream.wait();
      weight_copies_.push_back(
          std::make_shared<const WeightCopy>(WeightCopy{packed->plan->wei_md, packed->weights}));
      detail::release_file_pages(weight_);  // the copy runs; a later layout reads the file again
    }
  }
  return packed_.emplace(key, std::move(packed)).first->second;
}

void PackedConv2d::run(const Tensor& input, const Tensor& residual, const Tensor& out) const {
  XPORT_CHECK(input.dtype() == DType::Float32 && out.dtype() == DType::Float32 &&
                  out.is_contiguous() && residual.defined() == epilogue_.residual,
              Internal, "PackedConv2d::run: float32 input and contiguous output expected",
              epilogue_.residual ? ", with a residual" : "");
  if (out.int_numel() == 0) return;
  const Tensor x = contiguous_as(input, DType::Float32);
  Tensor r = residual.defined() ? contiguous_as(residual, DType::Float32) : Tensor();
  std::shared_ptr<const Packed> packed;
  try {
    packed = packed_for(x.int_sizes(), out.int_sizes());
  } catch (const dnnl::error&) {
    // No oneDNN implementation for this shape: the plain kernel, then the epilogue.
    XPORT_CHECK(!layouts_.src_nhwc && !layouts_.residual_nhwc && !layouts_.dst_nhwc, Internal,
                "PackedConv2d: oneDNN has no convolution for this shape in the channels-last "
                "layout its neighbours were given");
    if (r.defined() && r.raw_data() == out.raw_data()) r = byte_copy(r);  // written over
    conv2d_out(x, weight_, bias_, params_, out);
    apply_epilogue(out, r, epilogue_.relu);
    return;
  }
  execute_plan(*packed->plan, x, weight_, packed->weights ? packed->weights->data() : nullptr,
               bias_, r, out);
}

}  // namespace xport::kernels::cpu
