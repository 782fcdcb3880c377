// scaled_dot_product_attention: a fused CPU kernel, and a decomposition into
// bmm and softmax.
#include <cmath>
#include <limits>

#include "kernels/cpu/attention.h"
#include "ops/nn/nn_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

// scaled_dot_product_attention(query, key, value, attn_mask, dropout_p,
// is_causal, *, scale)
std::vector<TensorMeta> attention_meta(const OpArgs& args) {
  const Tensor& q = args.tensor("query");
  const Tensor& k = args.tensor("key");
  const Tensor& v = args.tensor("value");
  const Tensor mask = args.optional_tensor("attn_mask");
  XPORT_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, InvalidInput, args.name(),
              ": query, key and value need at least 2 dims [..., seq, features], got ",
              shape_str(q.sizes()), ", ", shape_str(k.sizes()), " and ", shape_str(v.sizes()));
  XPORT_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), InvalidInput, args.name(),
              ": query, key and value must have one dtype, got ", dtype_name(q.dtype()), ", ",
              dtype_name(k.dtype()), " and ", dtype_name(v.dtype()));
  XPORT_CHECK(is_floating(q.dtype()), InvalidInput, args.name(),
              ": needs floating point query, key and value, got ", dtype_name(q.dtype()));
  const SymInt L = q.size(q.dim() - 2);
  const SymInt E = q.size(q.dim() - 1);
  const SymInt S = k.size(k.dim() - 2);
  const SymInt Ev = v.size(v.dim() - 1);
  XPORT_CHECK(static_cast<bool>(k.size(k.dim() - 1) == E), InvalidInput, args.name(),
              ": key's last dim must equal query's (", E, "), got key ", shape_str(k.sizes()));
  XPORT_CHECK(static_cast<bool>(v.size(v.dim() - 2) == S), InvalidInput, args.name(),
              ": value must have as many rows as key (", S, "), got value ", shape_str(v.sizes()));
  XPORT_CHECK(args.real("dropout_p") == 0.0, UnsupportedOp, args.name(),
              ": dropout_p > 0 (random attention dropout) is not supported "
              "yet; pass dropout_p=0");
  auto batch_of = [](const Tensor& t) {
    return std::vector<SymInt>(t.sizes().begin(), t.sizes().end() - 2);
  };
  std::vector<SymInt> kv_batch = batch_of(k);
  // grouped-query attention: each key/value head serves several queries
  if (args.boolean("enable_gqa")) {
    XPORT_CHECK(q.dim() >= 3 && k.dim() >= 3 && v.dim() >= 3, InvalidInput, args.name(),
                ": enable_gqa needs [..., heads, seq, features] query, key and value");
    const SymInt hq = q.size(q.dim() - 3), hk = k.size(k.dim() - 3);
    XPORT_CHECK(static_cast<bool>(v.size(v.dim() - 3) == hk) &&
                    static_cast<bool>(hq % hk == SymInt(0)),
                InvalidInput, args.name(), ": enable_gqa needs key and value with one head count "
                "that divides the query's (", hq, "), got key ", shape_str(k.sizes()),
                " and value ", shape_str(v.sizes()));
    kv_batch.back() = hq;
  } else {
    kv_batch = broadcast_shapes(args, kv_batch, batch_of(v));
  }
  std::vector<SymInt> batch = broadcast_shapes(args, batch_of(q), kv_batch);
  if (mask.defined()) {
    XPORT_CHECK(!args.boolean("is_causal"), InvalidInput, args.name(),
                ": attn_mask must be None when is_causal=True (the causal mask "
                "replaces it)");
    XPORT_CHECK(mask.dtype() == DType::Bool || mask.dtype() == q.dtype(), InvalidInput, args.name(),
                ": attn_mask must be bool or have the query's dtype (", dtype_name(q.dtype()),
                "), got ", dtype_name(mask.dtype()));
    std::vector<SymInt> scores = batch;
    scores.push_back(L);
    scores.push_back(S);
    // PyTorch adds the mask to the scores in place: it may broadcast, never enlarge them.
    const std::vector<SymInt> full = broadcast_shapes(args, mask.sizes(), scores);
    bool fits = full.size() == scores.size();
    for (size_t d = 0; fits && d < full.size(); ++d) fits = static_cast<bool>(full[d] == scores[d]);
    XPORT_CHECK(fits, InvalidInput, args.name(), ": attn_mask ", shape_str(mask.sizes()),
                " does not broadcast to the scores' shape ", shape_str(scores),
                " (it may have fewer dims or size-1 dims, not more)");
  }
  std::vector<SymInt> out = batch;
  out.push_back(L);
  out.push_back(Ev);
  return {contiguous_meta(out, q.dtype())};
}

// The softmax scale: given, or 1 / sqrt(E) (specialising a symbolic E).
double attention_scale(const Tensor& q, std::optional<double> scale) {
  if (scale) return *scale;
  return 1.0 / std::sqrt(static_cast<double>(q.size(q.dim() - 1).guard_int()));
}

// Key or value with each head repeated for the queries it serves (enable_gqa), as PyTorch's
// repeat_interleave over the head dim: [..., Hk, S, E] -> [..., Hq, S, E].
Tensor grouped(const Tensor& q, const Tensor& t, bool enable_gqa) {
  if (!enable_gqa) return t;
  const SymInt hq = q.size(q.dim() - 3), hk = t.size(t.dim() - 3);
  std::vector<SymInt> expanded = t.sizes();
  expanded.insert(expanded.end() - 2, hq / hk);
  std::vector<SymInt> merged = t.sizes();
  merged[merged.size() - 3] = hq;
  return t.unsqueeze(t.dim() - 2).expand(expanded).reshape(merged);
}

std::vector<Tensor> attention_decomp(const OpArgs& args) {
  const std::vector<SymInt> out_sizes = attention_meta(args)[0].sizes;
  const Tensor& q = args.tensor("query");
  const Tensor k = grouped(q, args.tensor("key"), args.boolean("enable_gqa"));
  const Tensor v = grouped(q, args.tensor("value"), args.boolean("enable_gqa"));
  const Tensor mask = args.optional_tensor("attn_mask");
  const std::vector<SymInt> batch(out_sizes.begin(), out_sizes.end() - 2);
  const SymInt B = numel_of(batch);
  const SymInt L = q.size(q.dim() - 2);
  const SymInt S = k.size(k.dim() - 2);
  // [batch..., rows, cols] -> [B, rows, cols]
  auto to_3d = [&](const Tensor& t) {
    std::vector<SymInt> full = batch;
    full.push_back(t.size(t.dim() - 2));
    full.push_back(t.size(t.dim() - 1));
    return t.expand(full).reshape({B, t.size(t.dim() - 2), t.size(t.dim() - 1)});
  };
  const OpDef& bmm = XPORT_OP("aten::bmm");
  Tensor scores = call1(bmm, {to_3d(q), to_3d(k).transpose(1, 2)})
                      .mul(attention_scale(q, args.optional_real("scale")));
  std::vector<SymInt> score_sizes = batch;
  score_sizes.push_back(L);
  score_sizes.push_back(S);
  scores = scores.reshape(score_sizes);
  const double neg_inf = -std::numeric_limits<double>::infinity();
  if (args.boolean("is_causal")) {
    // Query i attends to keys j <= i (top-left aligned, like PyTorch). Built from sizes only
    // (not arange, whose Scalar end would specialise a symbolic length under capture).
    const Tensor all = call1(XPORT_OP("aten::ones"), {std::vector<SymInt>{L, S}, DType::Bool});
    const Tensor future = call1(XPORT_OP("aten::triu"), {all, int64_t{1}});
    scores = call1(XPORT_OP("aten::masked_fill.Scalar"), {scores, future, neg_inf});
  } else if (mask.defined() && mask.dtype() == DType::Bool) {
    scores = call1(XPORT_OP("aten::masked_fill.Scalar"), {scores, mask.eq(false), neg_inf});
  } else if (mask.defined()) {
    scores = scores.add(mask);
  }
  const Tensor probs = call1(XPORT_OP("aten::_softmax"), {scores, int64_t{-1}, false});
  const Tensor out = call1(bmm, {probs.reshape({B, L, S}), to_3d(v)});
  return {out.reshape(out_sizes)};
}

}  // namespace

void scaled_dot_product_attention_out(const Tensor& query, const Tensor& key, const Tensor& value,
                                      const std::optional<Tensor>& attn_mask, double,
                                      bool is_causal, std::optional<double> scale,
                                      bool enable_gqa, const Tensor& out) {
  cpu::scaled_dot_product_attention_out(query, grouped(query, key, enable_gqa),
                                        grouped(query, value, enable_gqa),
                                        attn_mask.value_or(Tensor()), is_causal,
                                        attention_scale(query, scale), out);
}

void register_attention_ops() {
  register_op({
      .schema = "aten::scaled_dot_product_attention(Tensor query, Tensor key, "
                "Tensor value, "
                "Tensor? attn_mask=None, float dropout_p=0.0, bool "
                "is_causal=False, *, "
                "float? scale=None, bool enable_gqa=False) -> Tensor",
      .meta = attention_meta,
      .kernel = XPORT_OP_KERNEL(scaled_dot_product_attention_out),
      .decomp = attention_decomp,
  });
}

}  // namespace xport::ops
