#include "ir/passes/fusion.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <unordered_set>

#include "ir/ir_util.h"
#include "ir/passes/gelu_recognition.h"
#include "ir/passes/quantized_fusion.h"
#include "ir/passes/unsigned_activations.h"
#include "xport/core/error.h"

namespace xport::ir::passes {
namespace {

using detail::int_of;
using detail::is_one;
using detail::known_ints;
using detail::ref_of;


// The ops the patterns match and make (a table of names: data, looked up once).
struct KnownOps {
  const OpDef& conv = find_op("aten::convolution");
  const OpDef& conv2d = find_op("aten::conv2d");  // PyTorch's training IR keeps the composites
  const OpDef& batch_norm = find_op("aten::_native_batch_norm_legit_no_training");
  const OpDef& batch_norm_composite = find_op("aten::batch_norm");
  const OpDef& relu = find_op("aten::relu");
  const OpDef& relu_ = find_op("aten::relu_");
  const OpDef& linear = find_op("aten::linear");
  const OpDef& add = find_op("aten::add.Tensor");
  const OpDef& add_ = find_op("aten::add_.Tensor");
  const OpDef& addmm = find_op("aten::addmm");
  const OpDef& mm = find_op("aten::mm");
  const OpDef& gelu = find_op("aten::gelu");
  const OpDef& view = find_op("aten::view");
  const OpDef& fused_conv2d = find_op("xport::fused_conv2d");
  const OpDef& fused_linear = find_op("xport::fused_linear");
  const OpDef& fused_pointwise = find_op("xport::fused_pointwise");
  const OpDef& copy = find_op("aten::copy");
};

bool is_float(const Tensor& t) { return t.defined() && t.dtype() == DType::Float32; }

class Fuser {
 public:
  explicit Fuser(ConstantGraph& g) : g_(g) {}

  FusionStats run() {
    drop_identity_copies();
    // PT2E's quantized layers first: their float ops would not fuse.
    stats_.quantized = fuse_quantized_layers(g_);
    // Then the integer kernels' int8 results as uint8, which they multiply natively.
    stats_.unsigned_results = carry_int8_as_uint8(g_);
    // So that a GELU written out goes into the epilogue of the product before it.
    stats_.gelus = recognize_gelu(g_);
    if (stats_.gelus > 0) g_.graph.eliminate_dead_code();
    for (Node* node : calls()) {
      if (node->op() == &ops_.conv || node->op() == &ops_.conv2d) fuse_convolution(*node);
      if (node->op() == &ops_.addmm || node->op() == &ops_.mm) fuse_linear(*node);
      if (node->op() == &ops_.linear) fuse_linear_composite(*node);
    }
    // An absorbed relu_ or add_ is no longer read, but dead code elimination keeps updates: it
    // goes after the calls that read it (an add_'s relu) have.
    g_.graph.eliminate_dead_code();
    for (auto it = absorbed_updates_.rbegin(); it != absorbed_updates_.rend(); ++it) {
      g_.graph.erase(*it);  // last first: an add_'s relu_ reads it
    }
    g_.graph.eliminate_dead_code();
    std::unordered_set<const Node*> absorbed;
    for (Node* node : calls()) {
      if (!absorbed.count(node)) fuse_pointwise_chain(*node, absorbed);
    }
    g_.graph.eliminate_dead_code();
    g_.graph.verify();
    return stats_;
  }

 private:
  ConstantGraph& g_;
  KnownOps ops_;
  FusionStats stats_;
  int bodies_ = 0;

  // copy(self, src) of a src as self is (dtype, sizes, strides) is src: functionalization
  // writes `x += y` on an intermediate x as copy(x, add(x, y)), which would hide the add from
  // the patterns below (x read twice). Not where either value is updated in place or is a
  // graph output (they would alias).
  void drop_identity_copies() {
    bool dropped = false;
    for (Node* node : calls()) {
      const ValueRef* same = identity_of(*node);
      if (same == nullptr || updated_or_output(*node) || updated_or_output(*same->node)) continue;
      g_.graph.replace_all_uses(node->out(0), *same);
      dropped = true;
    }
    if (dropped) g_.graph.eliminate_dead_code();
  }

  // The argument a call's result equals, laid out as it is, or null.
  const ValueRef* identity_of(const Node& node) const {
    if (node.op() != &ops_.copy) return nullptr;
    const ValueRef* self = ref_of(node.arg("self"));
    const ValueRef* src = ref_of(node.arg("src"));
    if (self == nullptr || src == nullptr) return nullptr;
    const TensorSpec& a = self->node->outputs()[self->index];
    const TensorSpec& b = src->node->outputs()[src->index];
    const bool same = a.dtype == b.dtype && a.sizes == b.sizes && a.strides == b.strides &&
                      a.storage_offset == b.storage_offset && !a.none && !b.none;
    return same ? src : nullptr;
  }

  // Whether a call updates a value of `node` in place, or the graph returns one.
  bool updated_or_output(const Node& node) const {
    for (const Node* user : g_.graph.users(&node)) {
      if (user->kind() != NodeKind::Call || user->op()->kind == OpKind::InPlace) return true;
    }
    return false;
  }
  std::vector<const Node*> absorbed_updates_;  // relu_ and add_ calls a fused convolution does

  std::vector<Node*> calls() const {
    std::vector<Node*> out;
    for (const auto& node : g_.graph.nodes()) {
      if (node->kind() == NodeKind::Call) out.push_back(node.get());
    }
    return out;
  }

  const Node* sole_user(const Node& node) const { return detail::sole_user(g_.graph, node); }

  // weight * scale per output channel, and (bias - mean) * scale + beta, computed in double.
  void fold_batch_norm(const Node& bn, Tensor& weight, Tensor& bias) const {
    const Tensor gamma = g_.constant(bn.arg("weight")), beta = g_.constant(bn.arg("bias"));
    const Tensor mean = g_.constant(bn.arg("running_mean"));
    const Tensor var = g_.constant(bn.arg("running_var"));
    const double eps = std::get<double>(bn.arg("eps").value);
    const int64_t channels = weight.int_sizes()[0];
    const int64_t per_channel = weight.int_numel() / channels;
    const Tensor w = weight.contiguous();
    Tensor folded_w = Tensor::empty_contiguous(w.int_sizes(), DType::Float32);
    Tensor folded_b = Tensor::empty_contiguous({channels}, DType::Float32);
    auto floats = [](const Tensor& t) { return t.defined() ? t.data<float>() : nullptr; };
    const Tensor keep[] = {gamma.defined() ? gamma.contiguous() : Tensor(),
                           beta.defined() ? beta.contiguous() : Tensor(), mean.contiguous(),
                           var.contiguous(), bias.defined() ? bias.contiguous() : Tensor()};
    const float *gm = floats(keep[0]), *bt = floats(keep[1]), *m = floats(keep[2]),
                *v = floats(keep[3]), *old_b = floats(keep[4]), *from = w.data<float>();
    float *to = folded_w.mutable_data<float>(), *to_b = folded_b.mutable_data<float>();
    for (int64_t c = 0; c < channels; ++c) {
      const double scale = (gm ? gm[c] : 1.0) / std::sqrt(static_cast<double>(v[c]) + eps);
      for (int64_t i = c * per_channel; i < (c + 1) * per_channel; ++i) {
        to[i] = static_cast<float>(from[i] * scale);
      }
      to_b[c] =
          static_cast<float>(((old_b ? old_b[c] : 0.0) - m[c]) * scale + (bt ? bt[c] : 0.0));
    }
    weight = folded_w;
    bias = folded_b;
  }

  bool foldable_batch_norm(const Node& bn) const {
    if (bn.op() == &ops_.batch_norm_composite) {
      const auto* training = std::get_if<bool>(&bn.arg("training").value);
      if (training == nullptr || *training) return false;
    } else if (bn.op() != &ops_.batch_norm) {
      return false;
    }
    for (const char* name : {"weight", "bias"}) {
      if (!bn.arg(name).is_none() && !is_float(g_.constant(bn.arg(name)))) return false;
    }
    return is_float(g_.constant(bn.arg("running_mean"))) &&
           is_float(g_.constant(bn.arg("running_var"))) &&
           std::holds_alternative<double>(bn.arg("eps").value);
  }

  // `add` adds `node`'s value to a float32 tensor of the same sizes, alpha 1: the other operand,
  // else null. add_ too, when it updates `node`'s value, which only it reads (PyTorch's training
  // IR keeps Hugging Face ResNet's `hidden_state += residual`).
  const Argument* residual_of(const Node& add, const Node& node) const {
    if ((add.op() != &ops_.add && add.op() != &ops_.add_) || !is_one(add.arg("alpha"))) {
      return nullptr;
    }
    const ValueRef* a = ref_of(add.arg("self"));
    const ValueRef* b = ref_of(add.arg("other"));
    if (a == nullptr || b == nullptr) return nullptr;
    if (add.op() == &ops_.add_ && a->node != &node) return nullptr;
    const Argument* other = a->node == &node ? &add.arg("other") : &add.arg("self");
    const ValueRef* o = ref_of(*other);
    const TensorSpec& mine = node.outputs()[0];
    const TensorSpec& theirs = o->node->outputs()[o->index];
    if (o->node == &node || theirs.dtype != DType::Float32 || theirs.sizes != mine.sizes ||
        add.outputs()[0].dtype != DType::Float32) {
      return nullptr;
    }
    return other;
  }

  // A convolution's arguments in aten::convolution's order (fused_conv2d's first ones); for
  // aten::conv2d, not transposed.
  std::vector<Argument> convolution_args(const Node& conv) const {
    if (conv.op() == &ops_.conv) return conv.args();
    return {conv.arg("input"),    conv.arg("weight"),   conv.arg("bias"),
            conv.arg("stride"),   conv.arg("padding"),  conv.arg("dilation"),
            false,                std::vector<Argument>{0, 0}, conv.arg("groups")};
  }

  // relu, or relu_ (which updates the value only `next` reads, as PyTorch's training IR does).
  bool is_relu(const Node& next) const {
    return (next.op() == &ops_.relu || next.op() == &ops_.relu_) &&
           next.outputs()[0].dtype == DType::Float32;
  }

  void fuse_convolution(const Node& conv) {
    const std::vector<Argument> args = convolution_args(conv);
    const auto arg = [&](const char* name) -> const Argument& {
      return args.at(static_cast<size_t>(ops_.conv.arg_position(name)));
    };
    Tensor weight = g_.constant(arg("weight"));
    Tensor bias = arg("bias").is_none() ? Tensor() : g_.constant(arg("bias"));
    const auto* transposed = std::get_if<bool>(&arg("transposed").value);
    if (!is_float(weight) || weight.dim() != 4 ||
        (!arg("bias").is_none() && !is_float(bias)) || !known_ints(arg("stride"), 2) ||
        !known_ints(arg("padding"), 2) || !known_ints(arg("dilation"), 2) ||
        !int_of(arg("groups")) || transposed == nullptr || *transposed ||
        conv.outputs()[0].dtype != DType::Float32 || conv.outputs()[0].sizes.size() != 4) {
      return;
    }
    // The chain conv [-> batch norm] [-> add residual] [-> relu]; `tail` produces its result.
    const Node* tail = &conv;
    const Node* next = sole_user(*tail);
    const bool folds_batch_norm = next != nullptr && foldable_batch_norm(*next);
    if (folds_batch_norm) {
      fold_batch_norm(*next, weight, bias);
      tail = next;
      next = sole_user(*tail);
    }
    const Argument* residual = next != nullptr ? residual_of(*next, *tail) : nullptr;
    if (residual != nullptr) {
      if (next->op() == &ops_.add_) absorbed_updates_.push_back(next);
      tail = next;
      next = sole_user(*tail);
    }
    const bool relu = next != nullptr && is_relu(*next);
    if (relu) tail = next;
    if (relu && next->op() == &ops_.relu_) absorbed_updates_.push_back(next);

    std::vector<Argument> fused_args = args;
    if (folds_batch_norm) {
      fused_args.at(static_cast<size_t>(ops_.conv.arg_position("weight"))) =
          g_.add_constant("_folded_" + conv.name() + "_weight", weight);
      fused_args.at(static_cast<size_t>(ops_.conv.arg_position("bias"))) =
          g_.add_constant("_folded_" + conv.name() + "_bias", bias);
    }
    fused_args.push_back(residual != nullptr ? *residual : Argument());
    fused_args.emplace_back(relu);
    Node* fused = g_.graph.insert_call(tail->position(), ops_.fused_conv2d, std::move(fused_args),
                                       {tail->outputs()[0]}, tail->meta());
    g_.graph.replace_all_uses(tail->out(0), fused->out(0));
    ++stats_.convolutions;
    stats_.batch_norms += folds_batch_norm ? 1 : 0;
    stats_.residuals += residual != nullptr ? 1 : 0;
    stats_.relus += relu ? 1 : 0;
  }

  // The fused_linear activation `node` applies, if it is one.
  std::optional<std::string> activation_of(const Node& node) const {
    if (node.outputs()[0].dtype != DType::Float32) return std::nullopt;
    if (node.op() == &ops_.relu) return "relu";
    if (node.op() != &ops_.gelu) return std::nullopt;
    const auto* approximate = std::get_if<std::string>(&node.arg("approximate").value);
    if (approximate == nullptr) return std::nullopt;
    if (*approximate == "none") return "gelu";
    if (*approximate == "tanh") return "gelu_tanh";
    return std::nullopt;
  }

  // aten::linear(x, W, b) (PyTorch's training IR) with W a constant [N, K] and b a constant [N]
  // or None: fused_linear on W seen transposed (a view: no copy), then optionally an
  // activation. An input of more dims (contiguous) is seen as [M, K], the result viewed back.
  void fuse_linear_composite(const Node& node) {
    const Tensor weight = g_.constant(node.arg("weight"));
    const bool has_bias = !node.arg("bias").is_none();
    const Tensor bias = has_bias ? g_.constant(node.arg("bias")) : Tensor();
    const ValueRef* in = ref_of(node.arg("input"));
    if (!is_float(weight) || weight.dim() != 2 || in == nullptr ||
        node.outputs()[0].dtype != DType::Float32 ||
        (has_bias && (!is_float(bias) || bias.dim() != 1 ||
                      bias.int_size(0) != weight.int_size(0)))) {
      return;
    }
    const TensorSpec& x = in->node->outputs()[in->index];
    const bool flat = x.sizes.size() == 2;
    if (x.dtype != DType::Float32 || x.sizes.size() < 2 || (!flat && !detail::dense(x))) return;
    const Node* tail = &node;
    std::optional<std::string> activation;
    if (const Node* next = sole_user(node)) {
      activation = activation_of(*next);
      if (activation) tail = next;
    }
    sym::ExprPtr rows = x.sizes[0];
    for (size_t d = 1; d + 1 < x.sizes.size(); ++d) rows = sym::mul(rows, x.sizes[d]);
    const std::vector<sym::ExprPtr> flat_sizes = {rows, sym::integer(weight.int_size(0))};
    Argument input = node.arg("input");
    if (!flat) input = view_of(*tail, input, {rows, x.sizes.back()});
    Node* fused = g_.graph.insert_call(
        tail->position(), ops_.fused_linear,
        {input, g_.add_constant("_transposed_" + node.name() + "_weight", weight.t()),
         node.arg("bias"), activation.value_or("none")},
        {TensorSpec::contiguous(DType::Float32, flat_sizes)}, tail->meta());
    ValueRef result = fused->out(0);
    if (!flat) result = view_of(*tail, result, node.outputs()[0].sizes);
    g_.graph.replace_all_uses(tail->out(0), result);
    ++stats_.linears;
    stats_.activations += activation ? 1 : 0;
  }

  // aten::view(value, sizes), a call inserted before `before`.
  ValueRef view_of(const Node& before, const Argument& value,
                   const std::vector<sym::ExprPtr>& sizes) {
    std::vector<Argument> size_args(sizes.begin(), sizes.end());
    return g_.graph
        .insert_call(before.position(), ops_.view, {value, std::move(size_args)},
                     {TensorSpec::contiguous(DType::Float32, sizes)}, before.meta())
        ->out(0);
  }

  // addmm(bias, x, W) or mm(x, W) with W a constant [K, N] (and bias a constant [N], beta and
  // alpha 1), then optionally an activation, directly or through one view.
  void fuse_linear(const Node& node) {
    const bool has_bias = node.op() == &ops_.addmm;
    if (has_bias && (!is_one(node.arg("beta")) || !is_one(node.arg("alpha")))) return;
    const Argument& input = node.arg(has_bias ? "mat1" : "self");
    const Argument& weight_arg = node.arg("mat2");
    const Tensor weight = g_.constant(weight_arg);
    const Tensor bias = has_bias ? g_.constant(node.arg("self")) : Tensor();
    const ValueRef* in = ref_of(input);
    if (!is_float(weight) || weight.dim() != 2 || in == nullptr ||
        in->node->outputs()[in->index].dtype != DType::Float32 ||
        node.outputs()[0].dtype != DType::Float32) {
      return;
    }
    if (has_bias && (!is_float(bias) || bias.dim() != 1 ||
                     bias.int_size(0) != weight.int_size(1))) {
      return;
    }
    // [linear] -> act, or [linear] -> view -> act (the view is made again after the fused call).
    const Node* tail = &node;
    const Node* view = nullptr;
    std::optional<std::string> activation;
    if (const Node* next = sole_user(node)) {
      activation = activation_of(*next);
      if (activation) {
        tail = next;
      } else if (next->op() == &ops_.view) {
        const Node* after = sole_user(*next);
        activation = after ? activation_of(*after) : std::nullopt;
        if (activation) {
          view = next;
          tail = after;
        }
      }
    }
    Node* fused = g_.graph.insert_call(
        tail->position(), ops_.fused_linear,
        {input, weight_arg, has_bias ? node.arg("self") : Argument(), activation.value_or("none")},
        {node.outputs()[0]}, tail->meta());
    ValueRef result = fused->out(0);
    if (view != nullptr) {
      std::vector<Argument> view_args = view->args();
      view_args[0] = result;
      result = g_.graph
                   .insert_call(tail->position(), ops_.view, std::move(view_args),
                                {view->outputs()[0]}, view->meta())
                   ->out(0);
    }
    g_.graph.replace_all_uses(tail->out(0), result);
    ++stats_.linears;
    stats_.activations += activation ? 1 : 0;
  }

  // A float32 elementwise call whose tensor arguments all have its result's contiguous shape,
  // every other argument known.
  bool chainable(const Node& node) const {
    if (node.kind() != NodeKind::Call || !has_tag(*node.op(), Tag::Pointwise) ||
        node.op()->kind != OpKind::Functional || node.outputs().size() != 1) {
      return false;
    }
    const TensorSpec& result = node.outputs()[0];
    const auto contiguous = [&](const TensorSpec& t) {
      return t.dtype == DType::Float32 && t.sizes == result.sizes &&
             t.strides == TensorSpec::contiguous(t.dtype, t.sizes).strides &&
             (t.storage_offset == nullptr || sym::as_int(t.storage_offset) == 0);
    };
    if (!contiguous(result)) return false;
    for (const Argument& a : node.args()) {
      if (const ValueRef* ref = ref_of(a)) {
        if (!contiguous(ref->node->outputs()[ref->index])) return false;
      } else if (const auto* e = std::get_if<sym::ExprPtr>(&a.value)) {
        if (!sym::as_int(*e)) return false;
      } else if (std::holds_alternative<std::vector<Argument>>(a.value)) {
        return false;
      }
    }
    return true;
  }

  // `node` and the elementwise calls after it, each the only reader of the one before, as one
  // fused_pointwise call whose subgraph is the chain (when there are at least two).
  void fuse_pointwise_chain(const Node& node, std::unordered_set<const Node*>& absorbed) {
    std::vector<const Node*> chain;
    // The fused call reads every input where the chain ends: no update may come in between.
    for (const Node* next = &node; next != nullptr && chainable(*next) &&
                                   !detail::updates_between(g_.graph, node, *next);
         next = sole_user(*chain.back())) {
      chain.push_back(next);
    }
    if (chain.size() < 2) return;
    // The body: one placeholder per outside value the chain reads, then the chain's calls.
    auto body = std::make_shared<Graph>();
    std::vector<Argument> inputs;
    std::vector<const Node*> body_inputs;
    std::vector<const Node*> copied;
    for (size_t s = 0; s < chain.size(); ++s) {
      absorbed.insert(chain[s]);
      std::vector<Argument> args = chain[s]->args();
      for (Argument& a : args) {
        const ValueRef* ref = ref_of(a);
        if (ref == nullptr) continue;
        if (s > 0 && ref->node == chain[s - 1]) {
          a = copied.back()->out(0);
          continue;
        }
        auto known = std::find(inputs.begin(), inputs.end(), Argument(*ref));
        if (known == inputs.end()) {
          const TensorSpec& spec = ref->node->outputs()[ref->index];
          // Placeholders go before any call.
          body_inputs.push_back(body->add_placeholder("in" + std::to_string(inputs.size()), spec));
          inputs.emplace_back(*ref);
          known = inputs.end() - 1;
        }
        a = body_inputs[static_cast<size_t>(known - inputs.begin())]->out(0);
      }
      copied.push_back(body->add_call(*chain[s]->op(), std::move(args), chain[s]->outputs(),
                                      chain[s]->meta()));
    }
    body->set_output({copied.back()->out(0)});
    const Node* tail = chain.back();
    SubgraphRef ref{"pointwise_body_" + std::to_string(bodies_++), std::move(body)};
    Node* fused =
        g_.graph.insert_call(tail->position(), ops_.fused_pointwise,
                             {std::move(ref), Argument(std::move(inputs))},
                             {tail->outputs()[0]}, tail->meta());
    g_.graph.replace_all_uses(tail->out(0), fused->out(0));
    ++stats_.pointwise_chains;
    stats_.pointwise_ops += static_cast<int>(chain.size());
  }
};

}  // namespace

FusionStats fuse_operators(ConstantGraph& g) { return Fuser(g).run(); }

}  // namespace xport::ir::passes
