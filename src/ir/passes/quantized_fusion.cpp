// Over 600 lines for a reason: one matcher of linear layers (Layer: the training IR's linear,
// core ATen's addmm / mm over transposed weights) serves the int8, weight-only and bfloat16
// rewrites below, which apart would each repeat it. The sums after the convolutions and the
// chains between a dequantize and a quantize are passes of their own (quantized_adds.h,
// integer_chains.h).
#include "ir/passes/quantized_fusion.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir_util.h"
#include "ir/passes/quantized_adds.h"
#include "ir/passes/quantized_values.h"
#include "ir/passes/torchao_weights.h"
#include "kernels/cpu/weight_only_linear.h"
#include "tensor/file_mapping.h"

namespace xport::ir::passes {
namespace {

using detail::call_of;
using detail::int_of;
using detail::is_false;
using detail::is_one;
using detail::known_ints;
using detail::ref_of;
using quantized::statically_dequantized;
using quantized::whole_range;
using quantized::whole_range_dtype;

struct QuantOps {
  const OpDef& linear = find_op("aten::linear");
  const OpDef& view = find_op("aten::view");
  const OpDef& addmm = find_op("aten::addmm");
  const OpDef& mm = find_op("aten::mm");
  const OpDef& dequantize = find_op("quantized_decomposed::dequantize_per_tensor");
  const OpDef& dequantize_tensor = find_op("quantized_decomposed::dequantize_per_tensor.tensor");
  const OpDef& dequantize_channel = find_op("quantized_decomposed::dequantize_per_channel");
  const OpDef& dequantize_group =
      find_op("quantized_decomposed::dequantize_per_channel_group");
  const OpDef& weight_only_linear = find_op("xport::weight_only_linear");
  const OpDef& to_copy = find_op("aten::_to_copy");
  const OpDef& bf16_linear = find_op("xport::bf16_linear");
  const OpDef& embedding = find_op("aten::embedding");
  const OpDef& quantized_linear = find_op("xport::quantized_linear");
  const OpDef& quantized_linear_tensor = find_op("xport::quantized_linear.tensor");
  const OpDef& conv2d = find_op("aten::conv2d");
  const OpDef& convolution = find_op("aten::convolution");
  const OpDef& quantized_conv2d = find_op("xport::quantized_conv2d");
  const OpDef& quantized_conv2d_tensor = find_op("xport::quantized_conv2d.tensor");
  const OpDef& requantized_conv2d = find_op("xport::requantized_conv2d");
  const OpDef& relu = find_op("aten::relu");
  const OpDef& gelu = find_op("aten::gelu");
  const OpDef& dropout = find_op("aten::dropout");
  const OpDef& clone = find_op("aten::clone");
  const OpDef& requantized_linear = find_op("xport::requantized_linear");
  const OpDef& add = find_op("aten::add.Tensor");
  const OpDef& add_ = find_op("aten::add_.Tensor");
  const OpDef& quantize = find_op("quantized_decomposed::quantize_per_tensor");
};

// A dequantize whose result is float32 (out_dtype None or float32).
bool to_float32(const Node& dq) {
  return dq.outputs()[0].dtype == DType::Float32;
}

bool all_zero(const Tensor& t) {
  const Tensor z = t.to(DType::Int64).contiguous();
  const int64_t* d = z.data<int64_t>();
  for (int64_t i = 0; i < z.int_numel(); ++i) {
    if (d[i] != 0) return false;
  }
  return true;
}

class QuantizedFuser {
 public:
  explicit QuantizedFuser(ConstantGraph& g) : g_(g) {}

  QuantizedFusionStats run() {
    // torchao's dequantize arithmetic, as the quantized_decomposed ops matched below.
    recognize_torchao_weights(g_);
    std::vector<const Node*> calls;
    for (const auto& node : g_.graph.nodes()) {
      if (node->kind() == NodeKind::Call) calls.push_back(node.get());
    }
    QuantizedFusionStats stats;
    for (const Node* node : calls) {
      if (node->op() == &ops_.linear) count(fuse(match_linear(*node)), stats);
      if (node->op() == &ops_.addmm || node->op() == &ops_.mm) {
        count(fuse(match_matmul(*node)), stats);
      }
      if (node->op() == &ops_.conv2d || node->op() == &ops_.convolution) {
        stats.convolutions += fuse_convolution(*node, stats) ? 1 : 0;
      }
    }
    for (const Node* node : calls) {
      if (node->op() == &ops_.to_copy) stats.bf16 += fuse_autocast_bf16(*node) ? 1 : 0;
      if (node->op() == &ops_.embedding) stats.bf16 += gather_bf16(*node) ? 1 : 0;
    }
    if (stats.linears + stats.convolutions + stats.weight_only + stats.bf16 > 0) {
      g_.graph.eliminate_dead_code();
    }
    // An absorbed add_ is no longer read, but dead code elimination keeps updates: it goes once
    // the calls that read it (its ReLU, the quantize) have.
    for (const Node* add : absorbed_updates_) g_.graph.erase(add);
    if (!absorbed_updates_.empty()) g_.graph.eliminate_dead_code();
    // After the convolutions, which quantize their own results first.
    stats.adds = fuse_quantized_adds(g_);
    stats.residuals += stats.adds.into_convolutions;
    // Last: what is left between a dequantize and a quantize (the quantize calls the layers
    // absorbed are gone).
    stats.chains = fuse_integer_chains(g_);
    return stats;
  }

 private:
  ConstantGraph& g_;
  QuantOps ops_;
  std::vector<const Node*> absorbed_updates_;  // add_ calls the fused convolutions do

  // The int8 weights ([N, K], or [O, C, KH, KW]: `rank` dims) of a per-channel dequantize along
  // dim 0 with zero points 0.
  bool integer_weights(const Node& dw, int64_t rank = 2) const {
    const Tensor w = g_.constant(dw.arg("input"));
    const Tensor scales = g_.constant(dw.arg("scales"));
    if (!w.defined() || w.dtype() != DType::Int8 || w.dim() != rank || !scales.defined() ||
        !to_float32(dw)) {
      return false;
    }
    const auto* axis = std::get_if<sym::ExprPtr>(&dw.arg("axis").value);
    const std::optional<int64_t> a = axis ? sym::as_int(*axis) : std::nullopt;
    if (a != std::optional<int64_t>(0) && a != std::optional<int64_t>(-rank)) return false;
    if (dw.arg("zero_points").is_none()) return true;
    const Tensor zero_points = g_.constant(dw.arg("zero_points"));
    return zero_points.defined() && all_zero(zero_points);
  }

  // What a quantized linear layer is made of, in either spelling.
  struct Layer {
    const Node* anchor = nullptr;  // the call the fused one replaces
    const Node* dx = nullptr;      // dequantize of the input; null: a float input (weight-only)
    Argument input = {};           // that float input
    const Node* dw = nullptr;      // dequantize_per_channel(_group) of the weights
    Argument bias = {};            // None or a float32 constant [N]
    // The input's [M, K] sizes where it is seen as a matrix (a view); empty when it is one.
    std::vector<sym::ExprPtr> matrix = {};
    std::vector<sym::ExprPtr> result = {};  // the anchor's result sizes
    bool weight_in_out = false;  // bfloat16 weights [K, N], not transposed
  };

  const Node* dequantized_input(const Argument& arg) const {
    return call_of(arg, ops_.dequantize, &ops_.dequantize_tensor);
  }

  // aten::linear(dx, dw, bias) of PyTorch's training IR.
  std::optional<Layer> match_linear(const Node& linear) const {
    Layer l{.anchor = &linear,
            .dx = dequantized_input(linear.arg("input")),
            .input = linear.arg("input"),
            .dw = dequantized_weights(linear.arg("weight")),
            .bias = linear.arg("bias"),
            .result = linear.outputs()[0].sizes};
    if (l.dw == nullptr) return std::nullopt;
    if (l.dx == nullptr) return l;  // weight-only: the input as it is
    const std::vector<sym::ExprPtr>& x = l.dx->outputs()[0].sizes;
    if (x.size() > 2) {
      sym::ExprPtr rows = x[0];
      for (size_t d = 1; d + 1 < x.size(); ++d) rows = sym::mul(rows, x[d]);
      l.matrix = {rows, x.back()};
    }
    return l;
  }

  // addmm(bias, dx or view(dx), permute(dw, [1, 0])) or mm(...): the core ATen spelling
  // (run_decompositions), beta and alpha 1.
  std::optional<Layer> match_matmul(const Node& node) const {
    const bool addmm = node.op() == &ops_.addmm;
    if (addmm && (!is_one(node.arg("beta")) || !is_one(node.arg("alpha")))) return std::nullopt;
    const Node* transposed = transposed_matrix(node.arg("mat2"));
    // bfloat16 weights [K, N] read as they are (GPT-2's Conv1D after to_bf16).
    const Node* in_out = transposed == nullptr ? call_of(node.arg("mat2"), ops_.to_copy) : nullptr;
    if (in_out != nullptr && !bf16_constant(in_out->arg("self"))) in_out = nullptr;
    if (transposed == nullptr && in_out == nullptr) return std::nullopt;
    const Argument& mat1 = node.arg(addmm ? "mat1" : "self");
    Layer l{.anchor = &node,
            .input = mat1,
            .dw = in_out != nullptr ? in_out : dequantized_weights(transposed->arg("self")),
            .bias = addmm ? node.arg("self") : Argument(),
            .result = node.outputs()[0].sizes,
            .weight_in_out = in_out != nullptr};
    l.dx = dequantized_input(mat1);
    if (l.dx == nullptr) {
      const Node* view = call_of(mat1, ops_.view);
      l.dx = view != nullptr ? dequantized_input(view->arg("self")) : nullptr;
      if (l.dx != nullptr) l.matrix = view->outputs()[0].sizes;
    }
    if (l.dw == nullptr) return std::nullopt;
    if (addmm) {  // a bias of [N] (a [1, N] or [M, N] one is left alone)
      const Tensor bias = g_.constant(l.bias);
      if (!bias.defined() || bias.dim() != 1) return std::nullopt;
    }
    return l;
  }

  // A 2-D value seen transposed: permute(w, [1, 0]), t(w) or transpose(w, 0, 1) (xport's own
  // decomposition of t).
  const Node* transposed_matrix(const Argument& arg) const {
    const ValueRef* ref = ref_of(arg);
    return ref != nullptr && detail::is_matrix_transpose(*ref->node) ? ref->node : nullptr;
  }

  const Node* dequantized_weights(const Argument& arg) const {
    if (const Node* dq = call_of(arg, ops_.dequantize_channel, &ops_.dequantize_group)) return dq;
    const Node* widened = call_of(arg, ops_.to_copy);
    return widened != nullptr && bf16_constant(widened->arg("self")) ? widened : nullptr;
  }

  // A bfloat16 matrix the graph holds as a constant.
  bool bf16_constant(const Argument& arg) const {
    const Tensor t = g_.constant(arg);
    return t.defined() && t.dtype() == DType::BFloat16 && t.dim() == 2;
  }

  enum class Fused { None, Integer, Requantized, WeightOnly, Bf16 };

  static void count(Fused f, QuantizedFusionStats& stats) {
    if (f == Fused::Integer || f == Fused::Requantized) ++stats.linears;
    if (f == Fused::Requantized) ++stats.requantized_linears;
    if (f == Fused::WeightOnly) ++stats.weight_only;
    if (f == Fused::Bf16) ++stats.bf16;
  }

  Fused fuse(const std::optional<Layer>& match) {
    if (!match) return Fused::None;
    if (match->dw->op() == &ops_.to_copy) {
      return match->dx == nullptr && fuse_bf16(*match) ? Fused::Bf16 : Fused::None;
    }
    if (match->dx == nullptr) return fuse_weight_only(*match) ? Fused::WeightOnly : Fused::None;
    return fuse_integer(*match);
  }

  // A float32 input by bfloat16 weights widened where read (quant::to_bf16): one
  // xport::bf16_linear on the bfloat16 constant, which reads half the bytes.
  bool fuse_bf16(const Layer& l) {
    const ValueRef* x = ref_of(l.input);
    if (x == nullptr || x->node->outputs()[x->index].dtype != DType::Float32 ||
        !to_float32(*l.dw) || l.anchor->outputs()[0].dtype != DType::Float32) {
      return false;
    }
    const Tensor bias = l.bias.is_none() ? Tensor() : g_.constant(l.bias);
    if (!l.bias.is_none() && (!bias.defined() || bias.dtype() != DType::Float32 ||
                              bias.dim() != 1)) {
      return false;
    }
    Argument weight = l.dw->arg("self");
    if (l.weight_in_out) {  // [N, K], as bf16_linear reads it: copied once here
      const Tensor w = g_.constant(weight);
      weight = g_.add_constant("bf16_weight", w.t().contiguous());
      xport::detail::release_file_pages(w);
    }
    Node* fused = g_.graph.insert_call(
        l.anchor->position(), ops_.bf16_linear, {l.input, weight, l.bias, false},
        {TensorSpec::contiguous(DType::Float32, l.result)}, l.anchor->meta());
    g_.graph.replace_all_uses(l.anchor->out(0), fused->out(0));
    return true;
  }

  // torch.autocast's bfloat16 linear layer (quant::to_bf16's programs): _to_copy(P, float32)
  // of P = linear(x16, W, b16), or [view of] addmm(b16, x16, W read transposed) or mm, where
  // x16 is _to_copy(x, bfloat16) [viewed as a matrix] of a float32 x, W a bfloat16 constant
  // ([N, K]; a [K, N] one read as it is is copied transposed) and b16 None or a constant [N]:
  // one xport::bf16_linear(x, W, b, bf16_compute=True), which rounds as those ops do.
  bool fuse_autocast_bf16(const Node& widen) {
    const ValueRef* p = ref_of(widen.arg("self"));
    if (widen.outputs()[0].dtype != DType::Float32 || p == nullptr ||
        p->node->kind() != NodeKind::Call || p->node->outputs()[0].dtype != DType::BFloat16) {
      return false;
    }
    const Node* product = p->node;
    if (product->op() == &ops_.view) product = call_of(product->arg("self"), ops_.addmm, &ops_.mm);
    if (product == nullptr) return false;
    const bool linear = product->op() == &ops_.linear, addmm = product->op() == &ops_.addmm;
    if (!linear && !addmm && product->op() != &ops_.mm) return false;
    if (addmm && (!is_one(product->arg("beta")) || !is_one(product->arg("alpha")))) return false;
    // The weights, [N, K].
    Tensor w;
    if (linear) {
      w = g_.constant(product->arg("weight"));
    } else if (const Node* t = transposed_matrix(product->arg("mat2"))) {
      w = g_.constant(t->arg("self"));
    } else if (const Tensor in_out = g_.constant(product->arg("mat2")); in_out.defined()) {
      w = in_out.dim() == 2 ? in_out.t().contiguous() : Tensor();
    }
    if (!w.defined() || w.dtype() != DType::BFloat16 || w.dim() != 2) return false;
    // The float32 input, rounded to bfloat16 by the _to_copy the product reads.
    const Argument& read = product->arg(linear ? "input" : addmm ? "mat1" : "self");
    const Node* down = call_of(read, ops_.to_copy);
    if (down == nullptr && !linear) {
      const Node* view = call_of(read, ops_.view);
      down = view != nullptr ? call_of(view->arg("self"), ops_.to_copy) : nullptr;
    }
    const ValueRef* x = down != nullptr ? ref_of(down->arg("self")) : nullptr;
    // The fused call reads x where the result was widened: no update in place in between.
    if (x == nullptr || down->outputs()[0].dtype != DType::BFloat16 ||
        detail::updates_between(g_.graph, *down, widen)) {
      return false;
    }
    const TensorSpec& xs = x->node->outputs()[x->index];
    std::vector<sym::ExprPtr> sizes(xs.sizes.begin(), xs.sizes.end() - (xs.sizes.empty() ? 0 : 1));
    sizes.push_back(sym::integer(w.int_size(0)));
    if (xs.dtype != DType::Float32 || xs.sizes.empty() ||
        sym::as_int(xs.sizes.back()) != w.int_size(1) || widen.outputs()[0].sizes != sizes) {
      return false;
    }
    Argument bias;
    const Argument none;
    const Argument& b = linear ? product->arg("bias") : addmm ? product->arg("self") : none;
    if (!b.is_none()) {
      const Tensor bt = g_.constant(b);
      if (!bt.defined() || bt.dim() != 1 || bt.int_size(0) != w.int_size(0) ||
          !is_floating(bt.dtype())) {
        return false;
      }
      bias = g_.add_constant("bf16_bias", bt.to(DType::BFloat16).to(DType::Float32));
    }
    const Argument weight = g_.add_constant("bf16_weight", w);
    Node* fused = g_.graph.insert_call(widen.position(), ops_.bf16_linear,
                                       {*x, weight, bias, true},
                                       {TensorSpec::contiguous(DType::Float32, sizes)},
                                       widen.meta());
    g_.graph.replace_all_uses(widen.out(0), fused->out(0));
    return true;
  }

  // embedding(_to_copy(W bfloat16), ids) as _to_copy(embedding(W, ids)): the rows gathered,
  // then widened (the same values), so the table is never widened whole at each run.
  bool gather_bf16(const Node& node) {
    const Node* widened = call_of(node.arg("weight"), ops_.to_copy);
    if (widened == nullptr || !bf16_constant(widened->arg("self")) || !to_float32(*widened)) {
      return false;
    }
    std::vector<Argument> args = node.args();
    args[static_cast<size_t>(ops_.embedding.arg_position("weight"))] = widened->arg("self");
    TensorSpec rows = node.outputs()[0];
    rows.dtype = DType::BFloat16;
    Node* gathered = g_.graph.insert_call(node.position(), ops_.embedding, std::move(args),
                                          {rows}, node.meta());
    Node* wide = g_.graph.insert_call(
        node.position(), ops_.to_copy,
        {gathered->out(0), DType::Float32, Argument(), Argument(), Argument(), false, Argument()},
        {node.outputs()[0]}, node.meta());
    g_.graph.replace_all_uses(node.out(0), wide->out(0));
    return true;
  }

  // Weight-only: a float32 input by int8 weights per channel (any zero points), or by int4 ones
  // in groups of a multiple of 16 with K a multiple of 128 (packed two to a byte), written as
// xport::weight_only_linear.
  // Other int8 groupings run as int8 with groups.
  bool fuse_weight_only(const Layer& l) {
    const Node& dw = *l.dw;
    const ValueRef* x = ref_of(l.input);
    if (x == nullptr || x->node->outputs()[x->index].dtype != DType::Float32 ||
        !to_float32(dw) || l.anchor->outputs()[0].dtype != DType::Float32) {
      return false;
    }
    const Tensor w = g_.constant(dw.arg("input"));
    const Tensor scales = g_.constant(dw.arg("scales"));
    const bool has_zeros = !dw.arg("zero_points").is_none();
    const Tensor zeros = has_zeros ? g_.constant(dw.arg("zero_points")) : Tensor();
    if (!w.defined() || w.dtype() != DType::Int8 || w.dim() != 2 || !scales.defined() ||
        !is_floating(scales.dtype()) || (has_zeros && !zeros.defined())) {
      return false;
    }
    const int64_t n = w.int_size(0), k = w.int_size(1);
    int64_t group = k;
    if (dw.op() == &ops_.dequantize_group) {
      const std::optional<int64_t> g = int_of(dw.arg("group_size"));
      if (!g) return false;
      const bool one_per_row = scales.dim() > 0 && scales.int_sizes().back() == 1;
      group = *g > k && one_per_row ? k : *g;
      if (group <= 0 || k % group != 0) return false;
    } else {
      const std::optional<int64_t> axis = int_of(dw.arg("axis"));
      if (axis != std::optional<int64_t>(0) && axis != std::optional<int64_t>(-2)) return false;
    }
    if (scales.int_numel() != n * (k / group)) return false;
    const bool has_bias = !l.bias.is_none();
    const Tensor bias = has_bias ? g_.constant(l.bias) : Tensor();
    if (has_bias && (!bias.defined() || bias.dtype() != DType::Float32 || bias.dim() != 1)) {
      return false;
    }
    const std::optional<int64_t> qmin = int_of(dw.arg("quant_min"));
    const std::optional<int64_t> qmax = int_of(dw.arg("quant_max"));
    const bool int4 = qmin && qmax && *qmin >= -8 && *qmax <= 7 && k % 128 == 0 &&
                      group % 16 == 0;
    Tensor packed = w;
    if (int4) {
      // Values outside [-8, 7] would not pack (the dequantize does not clamp): int8 then.
      const Tensor v = w.contiguous();
      const int8_t* d = v.data<int8_t>();
      bool in_range = true;
      for (int64_t i = 0; in_range && i < v.int_numel(); ++i) in_range = d[i] >= -8 && d[i] <= 7;
      if (in_range) {
        packed = kernels::cpu::pack_int4(v);
        xport::detail::release_file_pages(w);
      }
    }
    const int64_t bits = packed.dtype() == DType::UInt8 ? 4 : 8;
    const ValueRef weight = g_.add_constant("weight_only_weight", packed);
    const ValueRef scale = g_.add_constant(
        "weight_only_scales", scales.to(DType::Float32).contiguous().reshape({n, k / group}));
    Argument zero_points;
    if (has_zeros && !all_zero(zeros)) {
      zero_points = g_.add_constant(
          "weight_only_zero_points", zeros.to(DType::Float32).contiguous().reshape({n, k / group}));
    }
    Node* fused = g_.graph.insert_call(
        l.anchor->position(), ops_.weight_only_linear,
        {l.input, weight, bits, scale, zero_points, group, l.bias},
        {TensorSpec::contiguous(DType::Float32, l.result)}, l.anchor->meta());
    g_.graph.replace_all_uses(l.anchor->out(0), fused->out(0));
    return true;
  }

  Fused fuse_integer(const Layer& l) {
    if (l.dw->op() != &ops_.dequantize_channel) return Fused::None;
    if (!to_float32(*l.dx) || !integer_weights(*l.dw) ||
        l.anchor->outputs()[0].dtype != DType::Float32) {
      return Fused::None;
    }
    const bool has_bias = !l.bias.is_none();
    const Tensor bias = has_bias ? g_.constant(l.bias) : Tensor();
    if (has_bias && (!bias.defined() || bias.dtype() != DType::Float32)) return Fused::None;
    // The fused call reads x_q where the anchor was: no update in place may come between.
    const ValueRef* q = ref_of(l.dx->arg("input"));
    if (q == nullptr || detail::updates_between(g_.graph, *q->node, *l.anchor)) return Fused::None;
    const TensorSpec& x = q->node->outputs()[q->index];
    if ((x.dtype != DType::UInt8 && x.dtype != DType::Int8) ||
        (l.matrix.empty() ? x.sizes.size() != 2 : !detail::dense(x))) {
      return Fused::None;
    }
    const std::vector<sym::ExprPtr> matrix = l.matrix.empty() ? x.sizes : l.matrix;
    const sym::ExprPtr columns = l.result.back();
    Argument input = *q;
    if (!l.matrix.empty()) input = view(*l.anchor, input, x.dtype, matrix);
    const bool tensors = l.dx->op() == &ops_.dequantize_tensor;
    if (!tensors) {
      if (const std::optional<LinearTail> tail = linear_tail(*l.anchor, *q)) {
        const Node& quantize = *tail->quantize;
        const TensorSpec& out = quantize.outputs()[0];
        const std::vector<sym::ExprPtr> product = {matrix[0], columns};
        Node* fused = g_.graph.insert_call(
            quantize.position(), ops_.requantized_linear,
            {input, l.dx->arg("scale"), l.dx->arg("zero_point"), l.dw->arg("input"),
             l.dw->arg("scales"), l.bias, tail->activation, quantize.arg("scale"),
             quantize.arg("zero_point"), quantize.arg("dtype")},
            {TensorSpec::contiguous(out.dtype, product)}, l.anchor->meta());
        ValueRef result = fused->out(0);
        if (out.sizes != product) result = view(quantize, result, out.dtype, out.sizes);
        g_.graph.replace_all_uses(quantize.out(0), result);
        return Fused::Requantized;
      }
    }
    Node* fused = g_.graph.insert_call(
        l.anchor->position(), tensors ? ops_.quantized_linear_tensor : ops_.quantized_linear,
        {input, l.dx->arg("scale"), l.dx->arg("zero_point"), l.dw->arg("input"),
         l.dw->arg("scales"), l.bias},
        {TensorSpec::contiguous(DType::Float32, {matrix[0], columns})}, l.anchor->meta());
    ValueRef result = fused->out(0);
    if (l.result.size() != 2) result = view(*l.anchor, result, DType::Float32, l.result);
    g_.graph.replace_all_uses(l.anchor->out(0), result);
    return Fused::Integer;
  }

  // conv2d / convolution (not transposed) of dx and dw, with a float32 constant bias or none and
  // known strides, padding, dilation and groups.
  bool fuse_convolution(const Node& node, QuantizedFusionStats& stats) {
    const bool core = node.op() == &ops_.convolution;
    if (core && !is_false(node.arg("transposed"))) return false;
    const Node* dx = dequantized_input(node.arg("input"));
    const Node* dw = call_of(node.arg("weight"), ops_.dequantize_channel);
    if (dx == nullptr || dw == nullptr || !to_float32(*dx) || !integer_weights(*dw, 4) ||
        node.outputs()[0].dtype != DType::Float32 || node.outputs()[0].sizes.size() != 4) {
      return false;
    }
    const Argument& bias = node.arg("bias");
    if (!bias.is_none()) {
      const Tensor b = g_.constant(bias);
      if (!b.defined() || b.dtype() != DType::Float32 || b.dim() != 1) return false;
    }
    for (const char* list : {"stride", "padding", "dilation"}) {
      if (!known_ints(node.arg(list))) return false;
    }
    if (!int_of(node.arg("groups"))) return false;
    const ValueRef* q = ref_of(dx->arg("input"));
    if (q == nullptr || detail::updates_between(g_.graph, *q->node, node)) return false;
    const TensorSpec& x = q->node->outputs()[q->index];
    if ((x.dtype != DType::UInt8 && x.dtype != DType::Int8) || x.sizes.size() != 4) return false;
    const bool tensors = dx->op() == &ops_.dequantize_tensor;
    std::vector<Argument> args = {*q,
                                  dx->arg("scale"),
                                  dx->arg("zero_point"),
                                  dw->arg("input"),
                                  dw->arg("scales"),
                                  bias,
                                  node.arg("stride"),
                                  node.arg("padding"),
                                  node.arg("dilation"),
                                  node.arg("groups")};
    if (!tensors) {
      if (const std::optional<Tail> tail = requantizing_tail(node, *q)) {
        const Node& quantize = *tail->quantize;
        args.push_back(tail->relu);
        args.push_back(quantize.arg("scale"));
        args.push_back(quantize.arg("zero_point"));
        args.push_back(quantize.arg("dtype"));
        if (tail->residual != nullptr) {
          args.push_back(tail->residual->arg("input"));
          args.push_back(tail->residual->arg("scale"));
          args.push_back(tail->residual->arg("zero_point"));
          ++stats.residuals;
        } else {
          args.insert(args.end(), {Argument(), 1.0, Argument(int64_t{0})});
        }
        // The result quantized once (conv_scale None: XNNPACK's blocks take that later).
        args.insert(args.end(), {Argument(), Argument(int64_t{0}), Argument()});
        Node* fused = g_.graph.insert_call(quantize.position(), ops_.requantized_conv2d,
                                           std::move(args), {quantize.outputs()[0]},
                                           node.meta());
        g_.graph.replace_all_uses(quantize.out(0), fused->out(0));
        if (tail->add != nullptr && tail->add->op()->kind == OpKind::InPlace) {
          absorbed_updates_.push_back(tail->add);
        }
        ++stats.requantized;
        return true;
      }
    }
    Node* fused = g_.graph.insert_call(
        node.position(), tensors ? ops_.quantized_conv2d_tensor : ops_.quantized_conv2d,
        std::move(args), {TensorSpec::contiguous(DType::Float32, node.outputs()[0].sizes)},
        node.meta());
    g_.graph.replace_all_uses(node.out(0), fused->out(0));
    return true;
  }

  const Node* sole_user(const Node& node) const { return detail::sole_user(g_.graph, node); }

  // What follows a static linear layer that xport::requantized_linear does itself.
  struct LinearTail {
    const Node* quantize = nullptr;
    std::string activation = "none";  // its name among the fused linear ops' activations
  };

  // layer -> [view ->] [relu or gelu ->] [dropout(train=False) or clone ->]
  // quantize_per_tensor over the whole uint8 or int8 range, each the only reader of the one
  // before, no update in place since x_q: the quantize and the activation, or nothing.
  std::optional<LinearTail> linear_tail(const Node& anchor, const ValueRef& q) const {
    LinearTail tail;
    const Node* next = sole_user(anchor);
    if (next != nullptr && next->op() == &ops_.view) next = sole_user(*next);
    if (next != nullptr && next->op() == &ops_.relu) {
      tail.activation = "relu";
      next = sole_user(*next);
    } else if (next != nullptr && next->op() == &ops_.gelu) {
      const auto* approximate = std::get_if<std::string>(&next->arg("approximate").value);
      if (approximate == nullptr || (*approximate != "none" && *approximate != "tanh")) {
        return std::nullopt;
      }
      tail.activation = *approximate == "none" ? "gelu" : "gelu_tanh";
      next = sole_user(*next);
    }
    // A copy of the value: eval-mode dropout (the training IR's), or clone (core ATen's).
    if (next != nullptr && next->op() == &ops_.dropout) {
      next = is_false(next->arg("train")) ? sole_user(*next) : nullptr;
    } else if (next != nullptr && next->op() == &ops_.clone) {
      next = sole_user(*next);
    }
    if (whole_range_dtype(next) == nullptr || detail::updates_between(g_.graph, *q.node, *next)) {
      return std::nullopt;
    }
    tail.quantize = next;
    return tail;
  }

  // What follows a convolution that xport::requantized_conv2d does itself.
  struct Tail {
    const Node* quantize = nullptr;
    const Node* residual = nullptr;  // the dequantize of a residual added, or null
    const Node* add = nullptr;       // the add (or add_) of it
    bool relu = false;
  };

  // conv -> [add(conv, dequantize_per_tensor(r)) ->] [relu ->] quantize_per_tensor over the
  // whole uint8 or int8 range, each the only reader of the one before, no update in place
  // since x_q (and r): the parts, or nothing. The residual r must be of the result's shape
  // and dtype, quantized per tensor with numbers for its scale and zero point.
  std::optional<Tail> requantizing_tail(const Node& conv, const ValueRef& q) const {
    Tail tail;
    const Node* next = sole_user(conv);
    const Node* add = nullptr;
    if (next != nullptr && (next->op() == &ops_.add || next->op() == &ops_.add_)) {
      add = tail.add = next;
      tail.residual = added_residual(*add, conv);
      if (tail.residual == nullptr) return std::nullopt;
      next = sole_user(*add);
    }
    if (next != nullptr && next->op() == &ops_.relu) {
      tail.relu = true;
      next = sole_user(*next);
    }
    const DType* dtype = whole_range_dtype(next);
    if (dtype == nullptr) return std::nullopt;
    // The add absorbed is the one update in place allowed (the training IR's `+=`).
    const auto updates_from = [&](const Node& first) {
      return add == nullptr ? detail::updates_between(g_.graph, first, *next)
                            : detail::updates_between(g_.graph, first, *add) ||
                                  detail::updates_between(g_.graph, *add, *next);
    };
    if (updates_from(*q.node)) return std::nullopt;
    if (tail.residual != nullptr) {
      const ValueRef& r = *ref_of(tail.residual->arg("input"));
      const TensorSpec& spec = r.node->outputs()[r.index];
      if (spec.dtype != *dtype || spec.sizes != conv.outputs()[0].sizes ||
          !whole_range(*tail.residual, spec.dtype) || updates_from(*r.node)) {
        return std::nullopt;
      }
    }
    tail.quantize = next;
    return tail;
  }

  // add(conv, dq), add(dq, conv) or add_(conv, dq), alpha 1, where dq is a float32
  // dequantize_per_tensor with numbers for its scale and zero point: dq, or null.
  const Node* added_residual(const Node& add, const Node& conv) const {
    if (!is_one(add.arg("alpha"))) return nullptr;
    const ValueRef* self = ref_of(add.arg("self"));
    const bool conv_first = self != nullptr && self->node == &conv;
    if (!conv_first && add.op() == &ops_.add_) return nullptr;  // the residual would be updated
    const Node* dq = call_of(add.arg(conv_first ? "other" : "self"), ops_.dequantize);
    return statically_dequantized(dq) != nullptr ? dq : nullptr;
  }

  // aten::view(value, sizes), a call inserted before `before`.
  ValueRef view(const Node& before, const Argument& value, DType dtype,
                const std::vector<sym::ExprPtr>& sizes) {
    std::vector<Argument> size_args(sizes.begin(), sizes.end());
    return g_.graph
        .insert_call(before.position(), ops_.view, {value, std::move(size_args)},
                     {TensorSpec::contiguous(dtype, sizes)}, before.meta())
        ->out(0);
  }
};

}  // namespace

QuantizedFusionStats fuse_quantized_layers(ConstantGraph& g) { return QuantizedFuser(g).run(); }

}  // namespace xport::ir::passes
