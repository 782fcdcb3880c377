#include "ir/passes/unsigned_activations.h"

#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/ir_util.h"
#include "ir/passes/quantized_values.h"

namespace xport::ir::passes {
namespace {

using detail::int_of;
using detail::ref_of;

struct FlipOps {
  const OpDef& quantize = find_op("quantized_decomposed::quantize_per_tensor");
  const OpDef& dequantize = find_op("quantized_decomposed::dequantize_per_tensor");
  const OpDef& requantized_conv2d = find_op("xport::requantized_conv2d");
  const OpDef& quantized_conv2d = find_op("xport::quantized_conv2d");
  const OpDef& quantized_add = find_op("xport::quantized_add");
  const OpDef& lookup = find_op("xport::quantized_lookup");
  const OpDef& max_pool2d = find_op("aten::max_pool2d");
};

class Flipper {
 public:
  explicit Flipper(ConstantGraph& g) : g_(g) {}

  int run() {
    for (const auto& node : g_.graph.nodes()) {
      if (node->kind() == NodeKind::Call && may_write_unsigned(*node) && readers_take(*node)) {
        flipped_.insert(node.get());
      }
    }
    // A convolution adding a residual writes the residual's dtype, a max pool its input's:
    // both flip, or neither.
    for (bool changed = true; changed;) {
      changed = false;
      const auto couple = [&](const Node* node, const ValueRef* with) {
        if (with != nullptr && flipped_.count(node) != flipped_.count(with->node)) {
          flipped_.erase(node);
          flipped_.erase(with->node);
          changed = true;
        }
      };
      for (const Node* conv : g_.graph.find_nodes(ops_.requantized_conv2d)) {
        couple(conv, ref_of(conv->arg("residual")));
      }
      for (const Node* pool : g_.graph.find_nodes(ops_.max_pool2d)) {
        couple(pool, ref_of(pool->arg("self")));
      }
    }
    const int flips = static_cast<int>(flipped_.size());
    if (flips == 0) return 0;
    std::vector<Node*> calls;
    for (const auto& node : g_.graph.nodes()) {
      if (node->kind() == NodeKind::Call) calls.push_back(node.get());
    }
    for (Node* node : calls) rewrite(*node);
    g_.graph.eliminate_dead_code();
    return flips;
  }

 private:
  ConstantGraph& g_;
  FlipOps ops_;
  // Calls whose result is now uint8: first the originals, then their rewritten calls too
  // (which the readers after them read, the uses having moved).
  std::unordered_set<const Node*> flipped_;

  // The argument naming a result's zero point, for the calls that write one as int8.
  const char* output_zero_point(const Node& node) const {
    if (node.op() == &ops_.requantized_conv2d || node.op() == &ops_.quantized_add) {
      return "output_zero_point";
    }
    if (node.op() == &ops_.quantize) return "zero_point";
    return nullptr;
  }

  bool may_write_unsigned(const Node& node) const {
    if (node.outputs().size() != 1 || node.outputs()[0].dtype != DType::Int8) return false;
    if (node.op() == &ops_.lookup || node.op() == &ops_.max_pool2d) return true;
    const char* zero_point = output_zero_point(node);
    if (zero_point == nullptr || !int_of(node.arg(zero_point))) return false;
    return node.op() != &ops_.quantize ||
           (quantized::whole_range_dtype(&node) != nullptr &&
            std::holds_alternative<double>(node.arg("scale").value));
  }

  // The argument holding the zero point of what `user` reads as `arg`; null when `user` does
  // not take uint8 there.
  const char* reader_zero_point(const Node& user, const Argument& arg) const {
    const auto is = [&](const char* name) {
      return user.op()->arg_position(name) >= 0 && &arg == &user.arg(name);
    };
    const OpDef* op = user.op();
    if (op == &ops_.requantized_conv2d || op == &ops_.quantized_conv2d) {
      if (is("input")) return "input_zero_point";
      if (is("residual")) return "residual_zero_point";
    } else if (op == &ops_.quantized_add) {
      if (is("self")) return "self_zero_point";
      if (is("other")) return "other_zero_point";
    } else if (op == &ops_.lookup) {
      if (is("self")) return "";  // the index is the same: v + 128
    } else if (op == &ops_.max_pool2d) {
      if (is("self")) return "";  // the maximum of v + 128 is the maximum of v, + 128
    } else if (op == &ops_.dequantize) {
      if (is("input")) return "zero_point";  // readers_take checks it is static
    }
    return nullptr;
  }

  bool readers_take(const Node& node) const {
    const std::vector<const Node*> users = g_.graph.users(&node);
    if (users.empty()) return false;
    for (const Node* user : users) {
      if (user->kind() != NodeKind::Call ||
          (user->op() == &ops_.dequantize && !quantized::statically_dequantized(user))) {
        return false;
      }
      for (const Argument& arg : user->args()) {
        const ValueRef* ref = ref_of(arg);
        if (ref == nullptr || ref->node != &node) continue;
        const char* zero_point = reader_zero_point(*user, arg);
        if (zero_point == nullptr || (*zero_point != '\0' && !int_of(user->arg(zero_point)))) {
          return false;
        }
      }
    }
    return true;
  }

  // `node` again, reading the rewritten calls, its zero points moved where it reads or writes
  // a flipped result.
  void rewrite(Node& node) {
    std::vector<Argument> args = node.args();
    bool changed = false;
    const auto shift = [&](const char* name, bool whole_range) {
      const size_t at = static_cast<size_t>(node.op()->arg_position(name));
      args[at] = Argument(*int_of(args[at]) + 128);
      if (whole_range) {
        args[static_cast<size_t>(node.op()->arg_position("quant_min"))] = Argument(int64_t{0});
        args[static_cast<size_t>(node.op()->arg_position("quant_max"))] = Argument(int64_t{255});
        args[static_cast<size_t>(node.op()->arg_position("dtype"))] = Argument(DType::UInt8);
      }
    };
    for (size_t a = 0; a < args.size(); ++a) {
      const ValueRef* ref = ref_of(args[a]);
      if (ref == nullptr || !flipped_.count(ref->node)) continue;
      const char* zero_point = reader_zero_point(node, node.args()[a]);
      if (*zero_point != '\0') shift(zero_point, node.op() == &ops_.dequantize);
      changed = true;
    }
    std::vector<TensorSpec> outputs = node.outputs();
    if (flipped_.count(&node)) {
      outputs[0].dtype = DType::UInt8;
      if (node.op() == &ops_.lookup) {
        args[1] = unsigned_table(node.arg("table"));
      } else if (node.op() == &ops_.max_pool2d) {
        // its result as it is: uint8 now, as its input
      } else if (node.op() == &ops_.quantize) {
        shift("zero_point", /*whole_range=*/true);
      } else {
        shift("output_zero_point", false);
        args[static_cast<size_t>(node.op()->arg_position("output_dtype"))] =
            Argument(DType::UInt8);
      }
      changed = true;
    }
    if (!changed) return;
    Node* rewritten = g_.graph.insert_call(node.position(), *node.op(), std::move(args),
                                           std::move(outputs), node.meta());
    for (size_t o = 0; o < node.outputs().size(); ++o) {
      g_.graph.replace_all_uses(node.out(static_cast<int>(o)),
                                rewritten->out(static_cast<int>(o)));
    }
    if (flipped_.count(&node)) flipped_.insert(rewritten);
  }

  // An int8 lookup table's entries as uint8 (each + 128), a new constant.
  Argument unsigned_table(const Argument& table) {
    const Tensor entries = g_.constant(table);
    Tensor flipped = Tensor::empty_contiguous({256}, DType::UInt8);
    std::memcpy(flipped.mutable_data<uint8_t>(), entries.raw_data(), 256);
    for (int i = 0; i < 256; ++i) flipped.mutable_data<uint8_t>()[i] ^= 0x80;
    return Argument(g_.add_constant("lookup_table", flipped));
  }
};

}  // namespace

int carry_int8_as_uint8(ConstantGraph& g) { return Flipper(g).run(); }

}  // namespace xport::ir::passes
