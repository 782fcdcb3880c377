#include "ir/passes/torchao_weights.h"

#include <cmath>
#include <optional>

#include "ir/ir_util.h"

namespace xport::ir::passes {
namespace {

using detail::call_of;

struct TorchaoOps {
  const OpDef& view = find_op("aten::view");
  const OpDef& mul = find_op("aten::mul.Tensor");
  const OpDef& sub = find_op("aten::sub.Tensor");
  const OpDef& to_copy = find_op("aten::_to_copy");
  const OpDef& mm = find_op("aten::mm");
  const OpDef& permute = find_op("aten::permute");
  const OpDef& dequantize_channel = find_op("quantized_decomposed::dequantize_per_channel");
  const OpDef& dequantize_group = find_op("quantized_decomposed::dequantize_per_channel_group");
};

// Integral values (zero points stored as float).
bool integral(const Tensor& t) {
  const Tensor d = t.to(DType::Float64).contiguous();
  const double* p = d.data<double>();
  for (int64_t i = 0; i < d.int_numel(); ++i) {
    if (p[i] != std::nearbyint(p[i])) return false;
  }
  return true;
}

// The quantized range the values of int8 `q` lie in: int4's where they fit it, so the fusion
// may pack them.
std::pair<int64_t, int64_t> range_of(const Tensor& q) {
  const Tensor c = q.contiguous();
  const int8_t* p = c.data<int8_t>();
  bool int4 = true;
  for (int64_t i = 0; int4 && i < c.int_numel(); ++i) int4 = p[i] >= -8 && p[i] <= 7;
  return int4 ? std::pair<int64_t, int64_t>{-8, 7} : std::pair<int64_t, int64_t>{-128, 127};
}

TensorSpec float_spec(int64_t rows, int64_t cols) {
  return TensorSpec::contiguous(DType::Float32, {sym::integer(rows), sym::integer(cols)});
}

class Recognizer {
 public:
  explicit Recognizer(ConstantGraph& g) : g_(g) {}

  int run() {
    std::vector<const Node*> calls;
    for (const auto& node : g_.graph.nodes()) {
      if (node->kind() == NodeKind::Call) calls.push_back(node.get());
    }
    int rewritten = 0;
    for (const Node* node : calls) {
      if (node->op() == &ops_.view) rewritten += grouped(*node) ? 1 : 0;
      if (node->op() == &ops_.mul) rewritten += per_row(*node) ? 1 : 0;
    }
    return rewritten;
  }

 private:
  ConstantGraph& g_;
  TorchaoOps ops_;

  // view(mul(sub(_to_copy(Q3), Z), S3), [N, K]): Q3 int8 [N, G, g], Z and S3 [N, G, 1]
  // (PerGroup), or Q int8 [N, K], Z and S [N, 1] (PerAxis(0): one group a row).
  bool grouped(const Node& view) {
    const TensorSpec& out = view.outputs()[0];
    if (out.dtype != DType::Float32 || out.sizes.size() != 2) return false;
    const Node* mul = call_of(view.arg("self"), ops_.mul);
    const Node* sub = mul ? call_of(mul->arg("self"), ops_.sub) : nullptr;
    const Node* widen = sub ? call_of(sub->arg("self"), ops_.to_copy) : nullptr;
    if (widen == nullptr || !is_one_alpha(*sub)) return false;
    const Tensor q = g_.constant(widen->arg("self"));
    const Tensor scales = g_.constant(mul->arg("other"));
    const Tensor zeros = zero_points(sub->arg("other"));
    if (!q.defined() || q.dtype() != DType::Int8 || (q.dim() != 3 && q.dim() != 2) ||
        !scales.defined() || scales.dtype() != DType::Float32 || !zeros.defined()) {
      return false;
    }
    const bool row_groups = q.dim() == 2;
    const int64_t n = q.int_size(0), groups = row_groups ? 1 : q.int_size(1);
    const int64_t group = q.int_size(q.dim() - 1);
    const std::vector<int64_t> per_group =
        row_groups ? std::vector<int64_t>{n, 1} : std::vector<int64_t>{n, groups, 1};
    if (scales.int_sizes() != per_group || zeros.int_sizes() != per_group ||
        widen->outputs()[0].dtype != DType::Float32 ||
        sym::as_int(out.sizes[0]) != n || sym::as_int(out.sizes[1]) != groups * group) {
      return false;
    }
    const auto [qmin, qmax] = range_of(q);
    const ValueRef w = g_.add_constant("torchao_weight", q.reshape({n, groups * group}));
    const ValueRef s = g_.add_constant("torchao_scales", scales.reshape({n, groups}));
    const ValueRef z = g_.add_constant("torchao_zero_points",
                                       zeros.to(DType::Int32).reshape({n, groups}));
    Node* dq = g_.graph.insert_call(
        view.position(), ops_.dequantize_group,
        {w, s, z, qmin, qmax, DType::Int8, group, DType::Float32},
        {float_spec(n, groups * group)}, view.meta());
    g_.graph.replace_all_uses(view.out(0), dq->out(0));
    return true;
  }

  // A zero point: an integer constant widened by _to_copy, or a float constant of whole values.
  Tensor zero_points(const Argument& arg) const {
    if (const Node* widen = call_of(arg, ops_.to_copy)) {
      const Tensor z = g_.constant(widen->arg("self"));
      return z.defined() && is_integral(z.dtype(), false) ? z : Tensor();
    }
    const Tensor z = g_.constant(arg);
    return z.defined() && is_floating(z.dtype()) && integral(z) ? z : Tensor();
  }

  static bool is_one_alpha(const Node& sub) { return detail::is_one(sub.arg("alpha")); }

  // mul(mm(x, _to_copy(QT)), S): QT int8 [K, N] (Q permuted), S float32 [N].
  bool per_row(const Node& mul) {
    const Node* mm = call_of(mul.arg("self"), ops_.mm);
    const Node* widen = mm ? call_of(mm->arg("mat2"), ops_.to_copy) : nullptr;
    if (widen == nullptr || detail::sole_user(g_.graph, *mm) != &mul) return false;
    const Tensor qt = g_.constant(widen->arg("self"));
    const Tensor scales = g_.constant(mul.arg("other"));
    if (!qt.defined() || qt.dtype() != DType::Int8 || qt.dim() != 2 || !scales.defined() ||
        scales.dtype() != DType::Float32 || scales.dim() != 1 ||
        scales.int_size(0) != qt.int_size(1) || widen->outputs()[0].dtype != DType::Float32 ||
        mul.outputs()[0].sizes.size() != 2) {
      return false;
    }
    const int64_t k = qt.int_size(0), n = qt.int_size(1);
    const ValueRef w = g_.add_constant("torchao_weight", qt.t().contiguous());
    const ValueRef s = g_.add_constant("torchao_scales", scales);
    Node* dq = g_.graph.insert_call(
        mul.position(), ops_.dequantize_channel,
        {w, s, Argument(), int64_t{0}, int64_t{-128}, int64_t{127}, DType::Int8, Argument()},
        {float_spec(n, k)}, mul.meta());
    TensorSpec transposed = float_spec(k, n);
    transposed.strides = {sym::integer(1), sym::integer(k)};
    Node* permuted = g_.graph.insert_call(
        mul.position(), ops_.permute,
        {dq->out(0), std::vector<Argument>{int64_t{1}, int64_t{0}}}, {transposed}, mul.meta());
    Node* product = g_.graph.insert_call(mul.position(), ops_.mm,
                                         {mm->arg("self"), permuted->out(0)},
                                         {mul.outputs()[0]}, mul.meta());
    g_.graph.replace_all_uses(mul.out(0), product->out(0));
    return true;
  }
};

}  // namespace

int recognize_torchao_weights(ConstantGraph& g) { return Recognizer(g).run(); }

}  // namespace xport::ir::passes
