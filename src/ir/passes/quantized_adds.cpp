#include "ir/passes/quantized_adds.h"

#include <vector>

#include "ir/ir_util.h"
#include "ir/passes/quantized_values.h"

namespace xport::ir::passes {
namespace {

using detail::call_of;
using detail::int_of;
using detail::is_false;
using detail::is_one;
using detail::ref_of;
using quantized::statically_dequantized;
using quantized::whole_range_dtype;

struct AddOps {
  const OpDef& quantize = find_op("quantized_decomposed::quantize_per_tensor");
  const OpDef& dequantize = find_op("quantized_decomposed::dequantize_per_tensor");
  const OpDef& relu = find_op("aten::relu");
  const OpDef& add = find_op("aten::add.Tensor");
  const OpDef& add_ = find_op("aten::add_.Tensor");
  const OpDef& requantized_conv2d = find_op("xport::requantized_conv2d");
  const OpDef& quantized_add = find_op("xport::quantized_add");
};

class AddFuser {
 public:
  explicit AddFuser(ConstantGraph& g) : g_(g) {}

  QuantizedAddStats run() {
    std::vector<const Node*> quantizes;
    for (const auto& node : g_.graph.nodes()) {
      if (node->kind() == NodeKind::Call && node->op() == &ops_.quantize) {
        quantizes.push_back(node.get());
      }
    }
    for (const Node* q : quantizes) stats_.adds += fuse_quantized_add(*q) ? 1 : 0;
    if (stats_.adds == 0) return stats_;
    g_.graph.eliminate_dead_code();
    // An absorbed add_ is no longer read, but dead code elimination keeps updates: it goes once
    // the calls that read it (its ReLU, the quantize) have.
    for (const Node* add : absorbed_updates_) g_.graph.erase(add);
    if (!absorbed_updates_.empty()) g_.graph.eliminate_dead_code();
    return stats_;
  }

 private:
  ConstantGraph& g_;
  AddOps ops_;
  QuantizedAddStats stats_;
  std::vector<const Node*> absorbed_updates_;  // add_ calls rewritten

  const Node* sole_user(const Node& node) const { return detail::sole_user(g_.graph, node); }

  // quantize(relu?(add(dequantize(a), dequantize(b)))), alpha 1, over whole 8-bit ranges, a and
  // b of the sum's shape, each call the only reader of the one before, no update in place since
  // a or b but an add_ absorbed (whose updated dequantize nothing else reads): one
  // xport::quantized_add. XNNPACK's residual blocks end so, their convolutions having quantized
  // their own results.
  bool fuse_quantized_add(const Node& quantize) {
    const DType* dtype = whole_range_dtype(&quantize);
    const ValueRef* in = ref_of(quantize.arg("input"));
    if (dtype == nullptr || in == nullptr || in->index != 0) return false;
    const Node* add = in->node;
    const Node* relu = nullptr;
    if (add->op() == &ops_.relu) {
      relu = add;
      const ValueRef* r = ref_of(relu->arg("self"));
      add = r != nullptr && r->index == 0 ? r->node : nullptr;
    }
    if (add == nullptr || (add->op() != &ops_.add && add->op() != &ops_.add_) ||
        !is_one(add->arg("alpha")) || sole_user(*add) != (relu ? relu : &quantize) ||
        (relu != nullptr && sole_user(*relu) != &quantize)) {
      return false;
    }
    const Node* dq_a = call_of(add->arg("self"), ops_.dequantize);
    const Node* dq_b = call_of(add->arg("other"), ops_.dequantize);
    const ValueRef* a = statically_dequantized(dq_a);
    const ValueRef* b = statically_dequantized(dq_b);
    const bool in_place = add->op() == &ops_.add_;
    const std::vector<sym::ExprPtr>& sizes = add->outputs()[0].sizes;
    if (a == nullptr || b == nullptr || (in_place && sole_user(*dq_a) != add) ||
        a->node->outputs()[a->index].sizes != sizes ||
        b->node->outputs()[b->index].sizes != sizes) {
      return false;
    }
    const auto updates_from = [&](const Node& first) {
      return in_place ? detail::updates_between(g_.graph, first, *add) ||
                            detail::updates_between(g_.graph, *add, quantize)
                      : detail::updates_between(g_.graph, first, quantize);
    };
    if (updates_from(*a->node) || updates_from(*b->node)) return false;
    const AddedQuantized sum{quantize, *add, relu != nullptr, *dtype};
    if (add_into_convolution(sum, {dq_a, a}, {dq_b, b}) ||
        add_into_convolution(sum, {dq_b, b}, {dq_a, a})) {
      if (in_place) absorbed_updates_.push_back(add);
      return true;
    }
    std::vector<Argument> args = {*a,
                                  dq_a->arg("scale"),
                                  dq_a->arg("zero_point"),
                                  *b,
                                  dq_b->arg("scale"),
                                  dq_b->arg("zero_point"),
                                  relu != nullptr,
                                  quantize.arg("scale"),
                                  quantize.arg("zero_point"),
                                  *dtype};
    Node* fused =
        g_.graph.insert_call(quantize.position(), ops_.quantized_add, std::move(args),
                             {TensorSpec::contiguous(*dtype, sizes)}, add->meta());
    g_.graph.replace_all_uses(quantize.out(0), fused->out(0));
    if (in_place) absorbed_updates_.push_back(add);
    return true;
  }

  // A sum of two dequantized values, [ReLU,] quantized (to `dtype`, by `quantize`).
  struct AddedQuantized {
    const Node& quantize;
    const Node& add;
    bool relu;
    DType dtype;
  };
  // One of its operands: the dequantize and the value it reads.
  struct Operand {
    const Node* dequantize;
    const ValueRef* value;
  };

  // The sum taken into the requantized convolution (no ReLU, no residual) whose result `conv`
  // is, which only its dequantize reads, only the add that: the convolution's result quantized
  // as it was, dequantized, then `residual` added, [ReLU,] quantized, all in its post-ops
  // (requantized_conv2d's conv_scale). The residual must be of the sum's dtype.
  bool add_into_convolution(const AddedQuantized& sum, Operand conv, Operand residual) {
    const Node& c = *conv.value->node;
    if (c.op() != &ops_.requantized_conv2d || !c.arg("residual").is_none() ||
        !c.arg("conv_scale").is_none() || !is_false(c.arg("relu")) ||
        sole_user(c) != conv.dequantize || sole_user(*conv.dequantize) != &sum.add ||
        residual.value->node == &c ||
        residual.value->node->outputs()[residual.value->index].dtype != sum.dtype ||
        std::get<double>(conv.dequantize->arg("scale").value) !=
            std::get<double>(c.arg("output_scale").value) ||
        int_of(conv.dequantize->arg("zero_point")) != int_of(c.arg("output_zero_point"))) {
      return false;
    }
    std::vector<Argument> args = c.args();
    const auto set = [&](const char* name, Argument value) {
      args[static_cast<size_t>(c.op()->arg_position(name))] = std::move(value);
    };
    set("relu", sum.relu);
    set("output_scale", sum.quantize.arg("scale"));
    set("output_zero_point", sum.quantize.arg("zero_point"));
    set("output_dtype", sum.dtype);
    set("residual", *residual.value);
    set("residual_scale", residual.dequantize->arg("scale"));
    set("residual_zero_point", residual.dequantize->arg("zero_point"));
    set("conv_scale", c.arg("output_scale"));
    set("conv_zero_point", c.arg("output_zero_point"));
    set("conv_dtype", c.outputs()[0].dtype);
    Node* fused = g_.graph.insert_call(
        sum.quantize.position(), ops_.requantized_conv2d, std::move(args),
        {TensorSpec::contiguous(sum.dtype, c.outputs()[0].sizes)}, sum.add.meta());
    g_.graph.replace_all_uses(sum.quantize.out(0), fused->out(0));
    ++stats_.into_convolutions;
    return true;
  }
};

}  // namespace

QuantizedAddStats fuse_quantized_adds(ConstantGraph& g) { return AddFuser(g).run(); }

}  // namespace xport::ir::passes
