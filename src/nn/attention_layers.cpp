// MultiheadAttention and TransformerEncoderLayer, computing what PyTorch 1.13's reference
// (non-fused) paths compute.
#include <cmath>
#include <limits>

#include "nn/init.h"
#include "xport/nn/layers.h"
#include "xport/ops/functions.h"

namespace xport::nn {
namespace {

// A bool mask (true = may not attend) as an additive float mask; a float mask as is.
Tensor additive_mask(const Tensor& mask, DType dtype, const char* what) {
  if (mask.dtype() == DType::Bool) {
    return masked_fill(zeros(mask.sizes(), dtype), mask, -std::numeric_limits<double>::infinity());
  }
  XPORT_CHECK(is_floating(mask.dtype()), InvalidInput, "MultiheadAttention: ", what,
              " must be bool or floating, got ", dtype_name(mask.dtype()));
  return mask.to(dtype);
}

bool same_sizes(const Tensor& t, const std::vector<SymInt>& expected) {
  if (t.dim() != static_cast<int64_t>(expected.size())) return false;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (!static_cast<bool>(t.size(static_cast<int64_t>(i)) == expected[i])) return false;
  }
  return true;
}

}  // namespace

MultiheadAttention::MultiheadAttention(int64_t embed_dim_, int64_t num_heads_, double dropout_,
                                       bool bias, bool batch_first_)
    : Module("MultiheadAttention"),
      embed_dim(embed_dim_),
      num_heads(num_heads_),
      dropout(dropout_),
      batch_first(batch_first_) {
  XPORT_CHECK(embed_dim > 0 && num_heads > 0 && embed_dim % num_heads == 0, InvalidInput,
              "MultiheadAttention: embed_dim (", embed_dim, ") must be divisible by num_heads (",
              num_heads, ")");
  // PyTorch: xavier_uniform_ on in_proj_weight, zero biases.
  const double bound = std::sqrt(6.0 / static_cast<double>(embed_dim + 3 * embed_dim));
  in_proj_weight =
      register_parameter("in_proj_weight", detail::uniform({3 * embed_dim, embed_dim}, bound));
  if (bias) in_proj_bias = register_parameter("in_proj_bias", zeros({3 * embed_dim}));
  out_proj = register_module("out_proj", std::make_shared<Linear>(embed_dim, embed_dim, bias));
  if (bias) out_proj->bias.zero_();
}

MultiheadAttention::Output MultiheadAttention::forward(const Tensor& query, const Tensor& key,
                                                       const Tensor& value,
                                                       const Tensor& key_padding_mask,
                                                       bool need_weights, const Tensor& attn_mask,
                                                       bool average_attn_weights) {
  ModuleScope scope(*this);
  XPORT_CHECK((query.dim() == 2 || query.dim() == 3) && key.dim() == query.dim() &&
                  value.dim() == query.dim(),
              InvalidInput,
              "MultiheadAttention: query, key and value must all be 3-D (batched) or 2-D "
              "(unbatched); got ",
              query.dim(), "-D, ", key.dim(), "-D and ", value.dim(), "-D");
  const bool batched = query.dim() == 3;
  // Work batch first: [N, L, E].
  auto batch_major = [&](const Tensor& t) {
    if (!batched) return t.unsqueeze(0);
    return batch_first ? t : t.transpose(0, 1);
  };
  const Tensor q_in = batch_major(query), k_in = batch_major(key), v_in = batch_major(value);
  const SymInt N = q_in.size(0), L = q_in.size(1), S = k_in.size(1);
  const int64_t E = embed_dim, H = num_heads, D = E / H;
  XPORT_CHECK(static_cast<bool>(q_in.size(2) == E) && static_cast<bool>(k_in.size(2) == E) &&
                  static_cast<bool>(v_in.size(2) == E),
              InvalidInput, "MultiheadAttention: query, key and value must have embed_dim (", E,
              ") features in their last dim");
  XPORT_CHECK(static_cast<bool>(v_in.size(1) == S) && static_cast<bool>(v_in.size(0) == N) &&
                  static_cast<bool>(k_in.size(0) == N),
              InvalidInput,
              "MultiheadAttention: key and value must have the same length and batch");

  // Input projections; one GEMM when query, key and value are the same tensor.
  auto proj = [&](const Tensor& x, int64_t part, int64_t parts) {
    const Tensor w = in_proj_weight.slice(0, part * E, (part + parts) * E);
    const Tensor b =
        in_proj_bias.defined() ? in_proj_bias.slice(0, part * E, (part + parts) * E) : Tensor();
    return linear(x, w, b);
  };
  Tensor q, k, v;
  if (query.is_same(key) && key.is_same(value)) {
    const std::vector<Tensor> qkv = chunk(proj(q_in, 0, 3), 3, -1);
    q = qkv[0], k = qkv[1], v = qkv[2];
  } else if (key.is_same(value)) {
    q = proj(q_in, 0, 1);
    const std::vector<Tensor> kv = chunk(proj(k_in, 1, 2), 2, -1);
    k = kv[0], v = kv[1];
  } else {
    q = proj(q_in, 0, 1), k = proj(k_in, 1, 1), v = proj(v_in, 2, 1);
  }
  auto heads = [&](const Tensor& t, const SymInt& len) {
    return t.reshape({N, len, H, D}).transpose(1, 2);  // [N, H, len, D]
  };
  q = heads(q, L), k = heads(k, S), v = heads(v, S);

  // One additive mask [N or 1, H or 1, L, S] from both masks.
  Tensor mask;
  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      XPORT_CHECK(same_sizes(attn_mask, {L, S}), InvalidInput,
                  "MultiheadAttention: a 2-D attn_mask must be [L, S] = [", L, ", ", S, "]");
      mask = additive_mask(attn_mask, q.dtype(), "attn_mask").view({1, 1, L, S});
    } else {
      XPORT_CHECK(attn_mask.dim() == 3 && same_sizes(attn_mask, {N * H, L, S}), InvalidInput,
                  "MultiheadAttention: a 3-D attn_mask must be [N * num_heads, L, S] = [", N * H,
                  ", ", L, ", ", S, "]");
      mask = additive_mask(attn_mask, q.dtype(), "attn_mask").view({N, H, L, S});
    }
  }
  if (key_padding_mask.defined()) {
    const Tensor kpm = batched ? key_padding_mask : key_padding_mask.unsqueeze(0);
    XPORT_CHECK(same_sizes(kpm, {N, S}), InvalidInput,
                "MultiheadAttention: key_padding_mask must be [N, S] = [", N, ", ", S, "]");
    const Tensor padding = additive_mask(kpm, q.dtype(), "key_padding_mask").view({N, 1, 1, S});
    mask = mask.defined() ? mask + padding : padding;
  }

  const double dropout_p = is_training() ? dropout : 0.0;
  Tensor attn, weights;
  if (!need_weights && dropout_p == 0) {
    attn = scaled_dot_product_attention(q, k, v, mask);
  } else {
    // PyTorch scales the query before the product.
    Tensor scores = matmul(q * (1.0 / std::sqrt(static_cast<double>(D))), k.transpose(-2, -1));
    if (mask.defined()) scores = scores + mask;
    weights = softmax(scores, -1);
    if (dropout_p > 0) weights = xport::dropout(weights, dropout_p, true);
    attn = matmul(weights, v);
  }
  Tensor out = out_proj->forward(attn.transpose(1, 2).reshape({N, L, E}));
  if (!batched) {
    out = out.squeeze(0);
  } else if (!batch_first) {
    out = out.transpose(0, 1);
  }
  Output result{out, Tensor()};
  if (need_weights) {
    result.attn_weights = average_attn_weights ? weights.mean({1}) : weights;
    if (!batched) result.attn_weights = result.attn_weights.squeeze(0);
  }
  return result;
}

Tensor MultiheadAttention::forward(const Tensor& x) { return forward(x, x, x, {}, false).output; }

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model, int64_t nhead, Options opts)
    : Module("TransformerEncoderLayer"), options(std::move(opts)) {
  XPORT_CHECK(options.activation == "relu" || options.activation == "gelu", InvalidInput,
              "TransformerEncoderLayer: activation must be \"relu\" or \"gelu\", got \"",
              options.activation, "\"");
  // Registration order is PyTorch's, so state dicts list names in the same order.
  self_attn =
      register_module("self_attn", std::make_shared<MultiheadAttention>(
                                       d_model, nhead, options.dropout, true, options.batch_first));
  linear1 = register_module("linear1", std::make_shared<Linear>(d_model, options.dim_feedforward));
  dropout =
      register_module("dropout", std::make_shared<Dropout>(options.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(options.dim_feedforward, d_model));
  norm1 = register_module(
      "norm1", std::make_shared<LayerNorm>(std::vector<int64_t>{d_model}, options.layer_norm_eps));
  norm2 = register_module(
      "norm2", std::make_shared<LayerNorm>(std::vector<int64_t>{d_model}, options.layer_norm_eps));
  dropout1 =
      register_module("dropout1", std::make_shared<Dropout>(options.dropout));
  dropout2 =
      register_module("dropout2", std::make_shared<Dropout>(options.dropout));
}

Tensor TransformerEncoderLayer::feed_forward(const Tensor& x) {
  Tensor h = linear1->forward(x);
  h = options.activation == "gelu" ? gelu(h) : relu(h);
  return dropout2->forward(linear2->forward(dropout->forward(h)));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask,
                                        const Tensor& src_key_padding_mask) {
  ModuleScope scope(*this);
  auto self_attention = [&](const Tensor& x) {
    return dropout1->forward(
        self_attn->forward(x, x, x, src_key_padding_mask, false, src_mask).output);
  };
  Tensor x = src;
  if (options.norm_first) {
    x = x + self_attention(norm1->forward(x));
    x = x + feed_forward(norm2->forward(x));
  } else {
    x = norm1->forward(x + self_attention(x));
    x = norm2->forward(x + feed_forward(x));
  }
  return x;
}

}  // namespace xport::nn
