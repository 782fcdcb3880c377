#include "ir/passes/integer_chains.h"

#include <optional>
#include <vector>

#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "ir/passes/quantized_values.h"
#include "xport/core/error.h"

namespace xport::ir::passes {
namespace {

using detail::int_of;
using detail::ref_of;

constexpr size_t kLongestChain = 16;

struct ChainOps {
  const OpDef& quantize = find_op("quantized_decomposed::quantize_per_tensor");
  const OpDef& dequantize = find_op("quantized_decomposed::dequantize_per_tensor");
  const OpDef& clone = find_op("aten::clone");
  const OpDef& contiguous = find_op("aten::contiguous");
  const OpDef& reshape = find_op("aten::reshape");
  const OpDef& dropout = find_op("aten::dropout");
  const OpDef& max_pool2d = find_op("aten::max_pool2d");
  const OpDef& max_pool2d_with_indices = find_op("aten::max_pool2d_with_indices");
  const OpDef& lookup = find_op("xport::quantized_lookup");
};

// What a call of the chain does to the values it reads.
enum class Effect {
  Moves,        // each result value is one of its operand's values (views, copies, max pools)
  Copies,       // each result value is its operand's value at the same place (elementwise too)
  Elementwise,  // each result value a function of its operand's at the same place
  Other,
};

class ChainFuser {
 public:
  explicit ChainFuser(ConstantGraph& g) : g_(g) {}

  IntegerChainStats run() {
    std::vector<const Node*> quantizes;
    for (const auto& node : g_.graph.nodes()) {
      if (node->kind() == NodeKind::Call && node->op() == &ops_.quantize) {
        quantizes.push_back(node.get());
      }
    }
    IntegerChainStats stats;
    for (const Node* q : quantizes) fuse(*q, stats);
    if (stats.moves + stats.lookups > 0) g_.graph.eliminate_dead_code();
    return stats;
  }

 private:
  ConstantGraph& g_;
  ChainOps ops_;

  // The one value `node` reads (index 0 of its producer), where no other argument is a value.
  static const ValueRef* sole_operand(const Node& node) {
    const ValueRef* operand = nullptr;
    int refs = 0;
    for (const Argument& arg : node.args()) {
      detail::for_each_ref(arg, [&](const ValueRef& r) {
        operand = &r;
        ++refs;
      });
    }
    return refs == 1 && operand->index == 0 ? operand : nullptr;
  }

  Effect effect_of(const Node& node) const {
    const OpDef* op = node.op();
    if (op == &ops_.clone || op == &ops_.contiguous) return Effect::Copies;
    if (op == &ops_.dropout) {
      return detail::is_false(node.arg("train")) ? Effect::Copies : Effect::Other;
    }
    if (op->kind == OpKind::View || op == &ops_.reshape || op == &ops_.max_pool2d ||
        op == &ops_.max_pool2d_with_indices) {
      return Effect::Moves;
    }
    if (has_tag(*op, Tag::Pointwise) && !has_tag(*op, Tag::NondeterministicSeeded) &&
        op->kind == OpKind::Functional && node.outputs().size() == 1 &&
        node.outputs()[0].dtype == DType::Float32) {
      return Effect::Elementwise;
    }
    return Effect::Other;
  }

  void fuse(const Node& quantize, IntegerChainStats& stats) {
    const DType* out_dtype = quantized::whole_range_dtype(&quantize);
    if (out_dtype == nullptr || !std::holds_alternative<double>(quantize.arg("scale").value) ||
        !int_of(quantize.arg("zero_point"))) {
      return;
    }
    // From the quantize back to a dequantize: the chain, outermost call first.
    std::vector<const Node*> chain;
    bool moves = true, elementwise = true;
    const ValueRef* value = ref_of(quantize.arg("input"));
    while (value != nullptr && value->index == 0 && value->node->kind() == NodeKind::Call &&
           value->node->op() != &ops_.dequantize && chain.size() < kLongestChain) {
      const Effect effect = effect_of(*value->node);
      moves = moves && (effect == Effect::Moves || effect == Effect::Copies);
      elementwise = elementwise && (effect == Effect::Elementwise || effect == Effect::Copies);
      if (effect == Effect::Other) return;
      chain.push_back(value->node);
      value = sole_operand(*value->node);
    }
    const Node* dequantize = value != nullptr && value->index == 0 ? value->node : nullptr;
    const ValueRef* x = quantized::statically_dequantized(dequantize);
    if (x == nullptr || detail::updates_between(g_.graph, *x->node, quantize)) return;
    const DType in_dtype = x->node->outputs()[x->index].dtype;
    if (moves && quantized::same_parameters(*dequantize, in_dtype, quantize, *out_dtype)) {
      g_.graph.replace_all_uses(quantize.out(0), on_integers(*x, chain, quantize));
      ++stats.moves;
    } else if (elementwise) {
      const std::optional<Tensor> table = table_of(*dequantize, in_dtype, chain, quantize);
      if (!table) return;
      const ValueRef entries = g_.add_constant("lookup_table", *table);
      Node* lookup = g_.graph.insert_call(
          quantize.position(), ops_.lookup, {*x, entries},
          {TensorSpec::contiguous(*out_dtype, x->node->outputs()[x->index].sizes)},
          quantize.meta());
      g_.graph.replace_all_uses(quantize.out(0), lookup->out(0));
      ++stats.lookups;
    }
  }

  // The chain's calls again, innermost first, on x's integers (each result of x's dtype; an
  // eval-mode dropout is its operand), made contiguous as the quantize's result was.
  ValueRef on_integers(const ValueRef& x, const std::vector<const Node*>& chain,
                       const Node& quantize) {
    ValueRef value = x;
    const DType dtype = x.node->outputs()[x.index].dtype;
    const auto insert = [&](const OpDef& op, std::vector<Argument> args,
                            std::vector<TensorSpec> outputs, const NodeMeta& meta) {
      outputs[0].dtype = dtype;
      value = g_.graph.insert_call(quantize.position(), op, std::move(args), std::move(outputs),
                                   meta)
                  ->out(0);
    };
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const Node& call = **it;
      if (call.op() == &ops_.dropout) continue;
      std::vector<Argument> args = call.args();
      for (Argument& arg : args) {
        if (ref_of(arg) != nullptr) arg = Argument(value);
      }
      insert(*call.op(), std::move(args), call.outputs(), call.meta());
    }
    const TensorSpec& spec = value.node->outputs()[value.index];
    const TensorSpec contiguous = TensorSpec::contiguous(dtype, spec.sizes);
    if (spec.strides != contiguous.strides ||
        (spec.storage_offset != nullptr && spec.storage_offset != sym::integer(0))) {
      insert(ops_.contiguous, {value, std::string("contiguous_format")}, {contiguous},
             quantize.meta());
    }
    return value;
  }

  // The quantize of the chain of each of the 256 values of `dtype` dequantized, as those calls
  // compute it; none where an argument is not a constant.
  std::optional<Tensor> table_of(const Node& dequantize, DType dtype,
                                 const std::vector<const Node*>& chain,
                                 const Node& quantize) const {
    Tensor value = Tensor::empty_contiguous({256}, dtype);
    for (int v = 0; v < 256; ++v) {
      if (dtype == DType::Int8) {
        value.mutable_data<int8_t>()[v] = static_cast<int8_t>(v - 128);
      } else {
        value.mutable_data<uint8_t>()[v] = static_cast<uint8_t>(v);
      }
    }
    const auto apply = [&value](const Node& call) {
      const OpDef& op = *call.op();
      std::vector<Value> values;
      for (size_t i = 0; i < call.args().size(); ++i) {
        values.push_back(argument_value(
            call.args()[i], op.parsed.arguments[i].type,
            [&value](const ValueRef&) { return value; }, constant_int));
      }
      value = run_eager(bind_args(op, std::move(values))).at(0);
    };
    try {
      apply(dequantize);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) apply(**it);
      apply(quantize);
    } catch (const Error&) {
      return std::nullopt;  // a symbolic argument
    }
    return value.contiguous();
  }
};

}  // namespace

IntegerChainStats fuse_integer_chains(ConstantGraph& g) { return ChainFuser(g).run(); }

}  // namespace xport::ir::passes
