#include "runtime/fusion.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "ir/argument_value.h"
#include "kernels/cpu/conv.h"
#include "kernels/cpu/packed_linear.h"
#include "runtime/pointwise_chain.h"
#include "xport/error.h"
#include "xport/schema.h"

namespace xport::runtime {
namespace {

// The fused op: aten::convolution's arguments, then the residual added before the activation.
// Its meta is the convolution's; its kernel is a PackedConv2d made for one node.
constexpr const char* kFusedConvSchema =
    "xport_runtime::fused_conv2d(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
    "SymInt groups, Tensor? residual) -> Tensor";
constexpr size_t kConvArgs = 9;
// The same, writing its result over the residual (whose last reader it is): the residual is
// already where oneDNN's sum post-op wants it, so nothing is copied.
constexpr const char* kFusedConvInPlaceSchema =
    "xport_runtime::fused_conv2d_(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
    "SymInt groups, Tensor(a!) residual) -> Tensor(a!)";
// A matrix product with constant weights [K, N] (often a transposed parameter) and an activation;
// its kernel is a PackedLinear made for one node.
constexpr const char* kFusedLinearSchema =
    "xport_runtime::fused_linear(Tensor input, Tensor weight, Tensor? bias) -> Tensor";
// A chain of elementwise ops over its inputs; its kernel is a PointwiseChain.
constexpr const char* kFusedPointwiseSchema =
    "xport_runtime::fused_pointwise(Tensor[] inputs) -> Tensor";
struct KnownOps {
  const OpDef& conv = find_op("aten::convolution");
  const OpDef& batch_norm = find_op("aten::_native_batch_norm_legit_no_training");
  const OpDef& relu = find_op("aten::relu");
  const OpDef& add = find_op("aten::add.Tensor");
  const OpDef& addmm = find_op("aten::addmm");
  const OpDef& mm = find_op("aten::mm");
  const OpDef& gelu = find_op("aten::gelu");
  const OpDef& view = find_op("aten::view");
};

// A view with one result (a transpose, a slice; not split's list).
bool is_view(const OpDef& op) { return op.kind == OpKind::View && op.parsed.returns.size() == 1; }

std::optional<int64_t> int_of(const ir::Argument& arg) {
  const auto* e = std::get_if<sym::ExprPtr>(&arg.value);
  return e ? sym::as_int(*e) : std::nullopt;
}

std::optional<std::vector<int64_t>> ints_of(const ir::Argument& arg) {
  const auto* list = std::get_if<std::vector<ir::Argument>>(&arg.value);
  if (list == nullptr) return std::nullopt;
  std::vector<int64_t> out;
  for (const ir::Argument& a : *list) {
    const std::optional<int64_t> v = int_of(a);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

bool is_one(const ir::Argument& arg) {
  if (const auto* d = std::get_if<double>(&arg.value)) return *d == 1.0;
  return int_of(arg) == std::optional<int64_t>(1);
}

// An integer argument's value; throws when it is symbolic (the caller then leaves the node alone).
int64_t constant_int(sym::ExprPtr e) {
  const std::optional<int64_t> v = sym::as_int(e);
  XPORT_CHECK(v.has_value(), Internal, "not a constant");
  return *v;
}

// A contiguous float32 result of `sizes`.
std::vector<TensorMeta> float_result(std::vector<SymInt> sizes) {
  std::vector<SymInt> strides = contiguous_strides(sizes);
  return {TensorMeta{std::move(sizes), std::move(strides), 0, DType::Float32}};
}

const ir::ValueRef* ref_of(const ir::Argument& arg) {
  return std::get_if<ir::ValueRef>(&arg.value);
}

class Fuser {
 public:
  explicit Fuser(FusedGraph& out) : out_(out) {
    const std::vector<const ir::Node*> placeholders = out_.graph.placeholders();
    for (size_t i = 0; i < placeholders.size(); ++i) placeholder_index_[placeholders[i]] = i;
  }

  void run() {
    std::vector<const ir::Node*> calls;
    for (const auto& node : out_.graph.nodes()) {
      if (node->kind() == ir::NodeKind::Call) calls.push_back(node.get());
    }
    for (const ir::Node* node : calls) {
      if (node->op() == &ops_.conv) fuse_convolution(*node);
      if (node->op() == &ops_.addmm || node->op() == &ops_.mm) fuse_linear(*node);
    }
    out_.graph.eliminate_dead_code();
    choose_layouts();
    write_over_residuals();
    std::vector<const ir::Node*> remaining;
    for (const auto& node : out_.graph.nodes()) {
      if (node->kind() == ir::NodeKind::Call) remaining.push_back(node.get());
    }
    std::unordered_set<const ir::Node*> absorbed;
    for (const ir::Node* node : remaining) {
      if (!absorbed.count(node)) fuse_pointwise_chain(*node, absorbed);
    }
    out_.graph.eliminate_dead_code();
    out_.graph.verify();
  }

 private:
  FusedGraph& out_;
  KnownOps ops_;
  std::unordered_map<const ir::Node*, size_t> placeholder_index_;
  std::unordered_map<const ir::Node*, Tensor> constant_views_;
  struct FusedConvolution {
    const ir::Node* node;
    std::shared_ptr<kernels::cpu::PackedConv2d> packed;
    int64_t groups;
    kernels::cpu::ConvLayouts layouts = {};
  };
  std::vector<FusedConvolution> convolutions_;
  int constants_added_ = 0;

  // A convolution's result that only other (ungrouped) fused convolutions read, as input or
  // residual, stays in oneDNN's layout (channels-last, or blocked for larger batches:
  // kernels::cpu::ConvLayouts): neither side reorders it.
  void choose_layouts() {
    std::unordered_map<const ir::Node*, size_t> index;
    for (size_t i = 0; i < convolutions_.size(); ++i) index[convolutions_[i].node] = i;
    std::vector<kernels::cpu::ConvLayouts> layouts(convolutions_.size());
    for (size_t i = 0; i < convolutions_.size(); ++i) {
      const ir::Node* node = convolutions_[i].node;
      const std::vector<const ir::Node*> users = out_.graph.users(node);
      bool stays_nhwc = !users.empty();
      for (const ir::Node* user : users) {
        const auto it = index.find(user);
        stays_nhwc = stays_nhwc && it != index.end() && convolutions_[it->second].groups == 1;
        for (size_t a = 0; stays_nhwc && a < user->args().size(); ++a) {
          const ir::ValueRef* ref = ref_of(user->args()[a]);
          stays_nhwc = ref == nullptr || ref->node != node || a == 0 || a == kConvArgs;
        }
      }
      if (!stays_nhwc) continue;
      layouts[i].dst_nhwc = true;
      ++out_.stats.channels_last;
      for (const ir::Node* user : users) {
        kernels::cpu::ConvLayouts& l = layouts[index.at(user)];
        if (ref_of(user->args()[0]) && ref_of(user->args()[0])->node == node) l.src_nhwc = true;
        const ir::ValueRef* residual = ref_of(user->args()[kConvArgs]);
        if (residual != nullptr && residual->node == node) l.residual_nhwc = true;
      }
    }
    for (size_t i = 0; i < convolutions_.size(); ++i) {
      convolutions_[i].packed->set_layouts(layouts[i]);
      convolutions_[i].layouts = layouts[i];
    }
  }

  // A convolution that is the last reader of its residual (a fresh result of a kernel, or of a
  // convolution that wrote over its own residual, in the layout the convolution writes) writes
  // its result over it.
  void write_over_residuals() {
    std::unordered_set<const ir::Node*> written_over;
    for (const FusedConvolution& c : convolutions_) {
      const ir::Node* node = c.node;
      const ir::ValueRef* residual = ref_of(node->args()[kConvArgs]);
      if (residual == nullptr || c.layouts.residual_nhwc != c.layouts.dst_nhwc) continue;
      const ir::Node* producer = residual->node;
      if (producer->kind() != ir::NodeKind::Call || producer->outputs().size() != 1 ||
          (producer->op()->kind != OpKind::Functional && !written_over.count(producer)) ||
          producer->outputs()[0].dtype != DType::Float32 ||
          producer->outputs()[0].sizes != node->outputs()[0].sizes) {
        continue;
      }
      bool last = true;
      for (const ir::Node* user : out_.graph.users(producer)) {
        last = last && user->kind() == ir::NodeKind::Call &&
               (user == node || user->position() < node->position());
      }
      // Its other arguments must not be the residual: the input is read while the result is
      // written.
      for (size_t a = 0; last && a < kConvArgs; ++a) {
        const ir::ValueRef* ref = ref_of(node->args()[a]);
        last = ref == nullptr || ref->node != producer;
      }
      if (!last) continue;
      ir::Node* in_place = out_.graph.insert_call(node->position() + 1, fused_op(c.packed, true),
                                                  node->args(), node->outputs(), node->meta());
      out_.graph.replace_all_uses(node->out(), in_place->out());
      out_.graph.erase(node);
      written_over.insert(in_place);
      ++out_.stats.residuals_in_place;
    }
  }

  // The constant behind an argument: a weight or buffer placeholder, or a view of one (a
  // transposed or sliced parameter), evaluated here once; else an undefined tensor.
  Tensor constant(const ir::Argument& arg) {
    const ir::ValueRef* ref = ref_of(arg);
    if (ref == nullptr) return Tensor();
    const ir::Node& node = *ref->node;
    if (node.kind() == ir::NodeKind::Placeholder) {
      const size_t i = placeholder_index_.at(&node);
      const bool varies =
          out_.is_user_input[i] || (i < out_.is_updated.size() && out_.is_updated[i]);
      return varies ? Tensor() : out_.placeholders[i];
    }
    if (node.kind() != ir::NodeKind::Call || !is_view(*node.op())) return Tensor();
    if (auto it = constant_views_.find(&node); it != constant_views_.end()) return it->second;
    Tensor value;
    try {
      std::vector<Value> values;
      bool known = true;
      const auto& arguments = node.op()->parsed.arguments;
      for (size_t i = 0; i < node.args().size() && known; ++i) {
        values.push_back(ir::argument_value(
            node.args()[i], arguments[i].type,
            [&](const ir::ValueRef& r) {
              const Tensor t = constant(ir::Argument(r));
              known = known && t.defined();
              return t;
            },
            constant_int));
      }
      if (known) value = call(*node.op(), std::move(values)).to_tensor();
    } catch (const Error&) {
      value = Tensor();  // a symbolic size: not a constant
    }
    constant_views_[&node] = value;
    return value;
  }

  // The one call that uses value 0 of `node`, when nothing else (no other call, no graph output,
  // no other value of the node) is used.
  const ir::Node* sole_user(const ir::Node& node) const {
    const std::vector<const ir::Node*> users = out_.graph.users(&node);
    if (users.size() != 1 || users[0]->kind() != ir::NodeKind::Call) return nullptr;
    int uses = 0;
    for (const ir::Argument& a : users[0]->args()) {
      const ir::ValueRef* ref = ref_of(a);
      if (ref != nullptr && ref->node == &node) {
        if (ref->index != 0) return nullptr;
        ++uses;
      }
    }
    return uses == 1 ? users[0] : nullptr;
  }

  ir::ValueRef add_constant(const std::string& base, const Tensor& t) {
    std::vector<sym::ExprPtr> sizes;
    for (int64_t s : t.int_sizes()) sizes.push_back(sym::integer(s));
    const ir::Node* p =
        out_.graph.add_placeholder("fused_" + base + "_" + std::to_string(constants_added_++),
                                   ir::TensorSpec::contiguous(t.dtype(), std::move(sizes)));
    placeholder_index_[p] = out_.placeholders.size();
    out_.placeholders.push_back(t);
    out_.is_user_input.push_back(false);
    return p->out(0);
  }

  // weight * scale per output channel, and (bias - mean) * scale + beta, computed in double.
  void fold_batch_norm(const ir::Node& bn, Tensor& weight, Tensor& bias) {
    const Tensor gamma = constant(bn.args()[1]), beta = constant(bn.args()[2]);
    const Tensor mean = constant(bn.args()[3]), var = constant(bn.args()[4]);
    const double eps = std::get<double>(bn.args()[6].value);
    const int64_t channels = weight.int_sizes()[0];
    const int64_t per_channel = weight.int_numel() / channels;
    const Tensor w = weight.contiguous();
    Tensor folded_w = Tensor::empty_contiguous(w.int_sizes(), DType::Float32);
    Tensor folded_b = Tensor::empty_contiguous({channels}, DType::Float32);
    auto floats = [](const Tensor& t) { return t.defined() ? t.data<float>() : nullptr; };
    const Tensor keep[] = {gamma.defined() ? gamma.contiguous() : Tensor(),
                           beta.defined() ? beta.contiguous() : Tensor(), mean.contiguous(),
                           var.contiguous(), bias.defined() ? bias.contiguous() : Tensor()};
    const float *g = floats(keep[0]), *b = floats(keep[1]), *m = floats(keep[2]),
                *v = floats(keep[3]), *old_b = floats(keep[4]), *from = w.data<float>();
    float *to = folded_w.mutable_data<float>(), *to_b = folded_b.mutable_data<float>();
    for (int64_t c = 0; c < channels; ++c) {
      const double scale = (g ? g[c] : 1.0) / std::sqrt(static_cast<double>(v[c]) + eps);
      for (int64_t i = c * per_channel; i < (c + 1) * per_channel; ++i) {
        to[i] = static_cast<float>(from[i] * scale);
      }
      to_b[c] = static_cast<float>(((old_b ? old_b[c] : 0.0) - m[c]) * scale + (b ? b[c] : 0.0));
    }
    weight = folded_w;
    bias = folded_b;
  }

  bool foldable_batch_norm(const ir::Node& bn) {
    if (bn.op() != &ops_.batch_norm) return false;
    for (size_t i : {1, 2}) {
      if (!bn.args()[i].is_none() && !constant(bn.args()[i]).defined()) return false;
    }
    for (size_t i : {1, 2, 3, 4}) {
      const Tensor t = bn.args()[i].is_none() ? Tensor() : constant(bn.args()[i]);
      if (t.defined() && t.dtype() != DType::Float32) return false;
    }
    return constant(bn.args()[3]).defined() && constant(bn.args()[4]).defined() &&
           std::holds_alternative<double>(bn.args()[6].value);
  }

  // `add` adds `value` (node's output 0) to a tensor of the same sizes and dtype, alpha 1: the
  // other operand, else null.
  const ir::Argument* residual_of(const ir::Node& add, const ir::Node& node) {
    if (add.op() != &ops_.add || !is_one(add.args()[2])) return nullptr;
    const ir::ValueRef* a = ref_of(add.args()[0]);
    const ir::ValueRef* b = ref_of(add.args()[1]);
    if (a == nullptr || b == nullptr) return nullptr;
    const ir::Argument* other = a->node == &node ? &add.args()[1] : &add.args()[0];
    const ir::ValueRef* o = ref_of(*other);
    const ir::TensorSpec& mine = node.outputs()[0];
    const ir::TensorSpec& theirs = o->node->outputs()[o->index];
    if (o->node == &node || theirs.dtype != DType::Float32 || theirs.sizes != mine.sizes ||
        add.outputs()[0].dtype != DType::Float32) {
      return nullptr;
    }
    return other;
  }

  void fuse_convolution(const ir::Node& conv) {
    const std::vector<ir::Argument>& args = conv.args();
    Tensor weight = constant(args[1]);
    Tensor bias = args[2].is_none() ? Tensor() : constant(args[2]);
    const std::optional<std::vector<int64_t>> stride = ints_of(args[3]), padding = ints_of(args[4]),
                                              dilation = ints_of(args[5]);
    const std::optional<int64_t> groups = int_of(args[8]);
    const auto* transposed = std::get_if<bool>(&args[6].value);
    if (!weight.defined() || weight.dtype() != DType::Float32 || weight.dim() != 4 ||
        (!args[2].is_none() && (!bias.defined() || bias.dtype() != DType::Float32)) || !stride ||
        !padding || !dilation || !groups || transposed == nullptr || *transposed ||
        stride->size() != 2 || padding->size() != 2 || dilation->size() != 2 ||
        conv.outputs()[0].dtype != DType::Float32 || conv.outputs()[0].sizes.size() != 4) {
      return;
    }
    // The chain conv [-> batch norm] [-> add residual] [-> relu]; `tail` produces its result.
    const ir::Node* tail = &conv;
    const ir::Node* next = sole_user(*tail);
    const bool folds_batch_norm = next != nullptr && foldable_batch_norm(*next);
    if (folds_batch_norm) {
      fold_batch_norm(*next, weight, bias);
      tail = next;
      next = sole_user(*tail);
    }
    const ir::Argument* residual = next != nullptr ? residual_of(*next, *tail) : nullptr;
    if (residual != nullptr) {
      tail = next;
      next = sole_user(*tail);
    }
    const bool relu =
        next != nullptr && next->op() == &ops_.relu && next->outputs()[0].dtype == DType::Float32;
    if (relu) tail = next;

    kernels::cpu::Conv2dParams params;
    params.stride = {(*stride)[0], (*stride)[1]};
    params.padding = {(*padding)[0], (*padding)[1]};
    params.dilation = {(*dilation)[0], (*dilation)[1]};
    params.groups = *groups;
    kernels::cpu::ConvEpilogue epilogue;
    epilogue.residual = residual != nullptr;
    epilogue.relu = relu;
    auto packed = std::make_shared<kernels::cpu::PackedConv2d>(weight, bias, params, epilogue);
    std::shared_ptr<kernels::cpu::PackedConv2d> kept = packed;

    std::vector<ir::Argument> fused_args(args.begin(), args.end());
    if (folds_batch_norm) {
      fused_args[1] = add_constant("conv_weight", weight);
      fused_args[2] = add_constant("conv_bias", bias);
    }
    fused_args.push_back(residual != nullptr ? *residual : ir::Argument());
    const OpDef& op = fused_op(std::move(packed));
    ir::Node* fused = out_.graph.insert_call(tail->position(), op, std::move(fused_args),
                                             {tail->outputs()[0]}, tail->meta());
    out_.graph.replace_all_uses(tail->out(0), fused->out(0));
    convolutions_.push_back({fused, std::move(kept), *groups});
    ++out_.stats.convolutions;
    out_.stats.batch_norms += folds_batch_norm ? 1 : 0;
    out_.stats.residuals += residual != nullptr ? 1 : 0;
    out_.stats.relus += relu ? 1 : 0;
  }

  // The activation `node` applies, when it is one PackedLinear can run as a post-op.
  std::optional<kernels::cpu::LinearActivation> activation_of(const ir::Node& node) const {
    using kernels::cpu::LinearActivation;
    if (node.outputs()[0].dtype != DType::Float32) return std::nullopt;
    if (node.op() == &ops_.relu) return LinearActivation::Relu;
    if (node.op() != &ops_.gelu) return std::nullopt;
    const auto* approximate = std::get_if<std::string>(&node.args()[1].value);
    if (approximate == nullptr) return std::nullopt;
    if (*approximate == "none") return LinearActivation::GeluErf;
    if (*approximate == "tanh") return LinearActivation::GeluTanh;
    return std::nullopt;
  }

  // addmm(bias, x, W) or mm(x, W) with W a constant [K, N] (and bias a constant [N], beta and
  // alpha 1), then optionally an activation, directly or through one view.
  void fuse_linear(const ir::Node& node) {
    const bool has_bias = node.op() == &ops_.addmm;
    const std::vector<ir::Argument>& args = node.args();
    if (has_bias && (!is_one(args[3]) || !is_one(args[4]))) return;
    const ir::Argument& input = args[has_bias ? 1 : 0];
    const ir::Argument& weight_arg = args[has_bias ? 2 : 1];
    const Tensor weight = constant(weight_arg);
    const Tensor bias = has_bias ? constant(args[0]) : Tensor();
    const ir::ValueRef* in = ref_of(input);
    if (!weight.defined() || weight.dtype() != DType::Float32 || weight.dim() != 2 ||
        in == nullptr || in->node->outputs()[in->index].dtype != DType::Float32 ||
        node.outputs()[0].dtype != DType::Float32) {
      return;
    }
    if (has_bias && (!bias.defined() || bias.dtype() != DType::Float32 || bias.dim() != 1 ||
                     bias.int_size(0) != weight.int_size(1))) {
      return;
    }
    // [linear] -> act, or [linear] -> view -> act (the view is made again after the fused call).
    const ir::Node* tail = &node;
    const ir::Node* view = nullptr;
    std::optional<kernels::cpu::LinearActivation> activation;
    if (const ir::Node* next = sole_user(node)) {
      activation = activation_of(*next);
      if (activation) {
        tail = next;
      } else if (next->op() == &ops_.view) {
        const ir::Node* after = sole_user(*next);
        activation = after ? activation_of(*after) : std::nullopt;
        if (activation) {
          view = next;
          tail = after;
        }
      }
    }
    auto packed = std::make_shared<const kernels::cpu::PackedLinear>(
        weight, bias, activation.value_or(kernels::cpu::LinearActivation::None));
    const OpDef& op = linear_op(std::move(packed));
    ir::Node* fused = out_.graph.insert_call(
        tail->position(), op, {input, weight_arg, has_bias ? args[0] : ir::Argument()},
        {node.outputs()[0]}, tail->meta());
    ir::ValueRef result = fused->out(0);
    if (view != nullptr) {
      std::vector<ir::Argument> view_args = view->args();
      view_args[0] = result;
      result = out_.graph
                   .insert_call(tail->position(), ops_.view, std::move(view_args),
                                {view->outputs()[0]}, view->meta())
                   ->out(0);
    }
    out_.graph.replace_all_uses(tail->out(0), result);
    ++out_.stats.linears;
    out_.stats.activations += activation ? 1 : 0;
  }

  // A float32 elementwise call whose tensor arguments all have its result's (contiguous)
  // shape, with every other argument a constant: the step that runs it, inputs unresolved.
  std::optional<PointwiseStep> pointwise_step(const ir::Node& node) const {
    if (node.kind() != ir::NodeKind::Call || !node.op()->pointwise ||
        node.outputs().size() != 1) {
      return std::nullopt;
    }
    const ir::TensorSpec& result = node.outputs()[0];
    const auto contiguous = [&](const ir::TensorSpec& t) {
      return t.dtype == DType::Float32 && t.sizes == result.sizes &&
             t.strides == ir::TensorSpec::contiguous(t.dtype, t.sizes).strides &&
             (t.storage_offset == nullptr || sym::as_int(t.storage_offset) == 0);
    };
    if (!contiguous(result)) return std::nullopt;
    PointwiseStep step;
    step.op = node.op();
    try {
      const auto& arguments = node.op()->parsed.arguments;
      for (size_t i = 0; i < node.args().size(); ++i) {
        const ir::ValueRef* ref = ref_of(node.args()[i]);
        if (ref != nullptr && !contiguous(ref->node->outputs()[ref->index])) return std::nullopt;
        step.args.push_back(ir::argument_value(
            node.args()[i], arguments[i].type, [](const ir::ValueRef&) { return Tensor(); },
            constant_int));
      }
    } catch (const Error&) {
      return std::nullopt;  // a symbolic scalar argument
    }
    return step;
  }

  // `node` and the elementwise calls after it, each the only reader of the one before, as one
  // call of a PointwiseChain (when there are at least two).
  void fuse_pointwise_chain(const ir::Node& node, std::unordered_set<const ir::Node*>& absorbed) {
    std::vector<const ir::Node*> chain;
    std::vector<PointwiseStep> steps;
    for (const ir::Node* next = &node; next != nullptr; next = sole_user(*chain.back())) {
      std::optional<PointwiseStep> step = pointwise_step(*next);
      if (!step) break;
      chain.push_back(next);
      steps.push_back(std::move(*step));
    }
    if (chain.size() < 2) return;
    std::vector<ir::Argument> inputs;
    for (size_t s = 0; s < chain.size(); ++s) {
      absorbed.insert(chain[s]);
      for (size_t i = 0; i < chain[s]->args().size(); ++i) {
        const ir::ValueRef* ref = ref_of(chain[s]->args()[i]);
        if (ref == nullptr) continue;
        if (s > 0 && ref->node == chain[s - 1]) {
          steps[s].tensor_args.emplace_back(i, -1);
          continue;
        }
        const auto known = std::find(inputs.begin(), inputs.end(), ir::Argument(*ref));
        steps[s].tensor_args.emplace_back(i, static_cast<int>(known - inputs.begin()));
        if (known == inputs.end()) inputs.emplace_back(*ref);
      }
    }
    const ir::Node* tail = chain.back();
    auto runner = std::make_shared<const PointwiseChain>(std::move(steps));
    const OpDef& op = own_op(
        kFusedPointwiseSchema,
        [](const OpArgs& a) { return float_result(a.tensors(0).at(0).sizes()); },
        [runner](const OpArgs& a, std::vector<Tensor>& outs) {
          runner->run(a.tensors(0), outs[0]);
        });
    ir::Node* fused =
        out_.graph.insert_call(tail->position(), op, {ir::Argument(std::move(inputs))},
                               {tail->outputs()[0]}, tail->meta());
    out_.graph.replace_all_uses(tail->out(0), fused->out(0));
    ++out_.stats.pointwise_chains;
    out_.stats.pointwise_ops += static_cast<int>(chain.size());
  }

  // An op only this graph calls: parsed here, owned by the result, never registered.
  const OpDef& own_op(const char* schema, MetaFn meta, KernelFn cpu) {
    auto op = std::make_unique<OpDef>();
    op->schema = schema;
    op->parsed = parse_schema(op->schema);
    op->qualified_name = op->parsed.qualified_name();
    op->meta = std::move(meta);
    op->cpu = std::move(cpu);
    detail::classify_op(*op);  // never registered: the runtime still reads its kind
    out_.ops.push_back(std::move(op));
    return *out_.ops.back();
  }

  const OpDef& linear_op(std::shared_ptr<const kernels::cpu::PackedLinear> packed) {
    return own_op(
        kFusedLinearSchema,
        [](const OpArgs& a) {
          return float_result({a.tensor(0).sizes()[0], a.tensor(1).sizes()[1]});
        },
        [packed](const OpArgs& a, std::vector<Tensor>& outs) {
          packed->run(a.tensor(0), outs[0]);
        });
  }

  const OpDef& fused_op(std::shared_ptr<const kernels::cpu::PackedConv2d> packed,
                        bool in_place = false) {
    const OpDef& conv = ops_.conv;
    return own_op(
        in_place ? kFusedConvInPlaceSchema : kFusedConvSchema,
        [&conv](const OpArgs& a) {
          return conv.meta(OpArgs(conv, {a.values().begin(), a.values().begin() + kConvArgs}));
        },
        [packed](const OpArgs& a, std::vector<Tensor>& outs) {
          packed->run(a.tensor(0), a.optional_tensor(kConvArgs), outs[0]);
        });
  }
};

}  // namespace

std::string FusionStats::str() const {
  if (convolutions == 0 && linears == 0 && pointwise_chains == 0) return "nothing to fuse";
  std::ostringstream out;
  if (convolutions > 0) {
    out << convolutions << " convolutions on packed weights (" << batch_norms
        << " batch norms folded in, " << residuals << " residual adds and " << relus
        << " ReLUs in their epilogues, " << residuals_in_place
        << " written over their residual; " << channels_last
        << " results passed on in oneDNN's layout)";
  }
  if (linears > 0) {
    out << (convolutions > 0 ? "; " : "") << linears << " matrix products on packed weights ("
        << activations << " activations in their epilogues)";
  }
  if (pointwise_chains > 0) {
    out << (convolutions + linears > 0 ? "; " : "") << pointwise_chains
        << " chains of elementwise ops in one pass (" << pointwise_ops << " ops)";
  }
  return out.str();
}

FusedGraph fuse_graph(const ir::Graph& graph, std::vector<Tensor> placeholders,
                      std::vector<bool> is_user_input, std::vector<bool> is_updated) {
  FusedGraph out;
  out.graph = graph.clone();
  out.placeholders = std::move(placeholders);
  out.is_user_input = std::move(is_user_input);
  out.is_updated = std::move(is_updated);
  Fuser(out).run();
  return out;
}

}  // namespace xport::runtime
