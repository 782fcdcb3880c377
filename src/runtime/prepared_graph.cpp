#include "runtime/prepared_graph.h"

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "ir/passes/composite_expansion.h"
#include "ir/passes/constant_folding.h"
#include "kernels/cpu/conv.h"
#include "kernels/cpu/pool.h"
#include "ops/fused/fused_ops.h"
#include "runtime/compiled_graph.h"
#include "runtime/pointwise_chain.h"
#include "xport/core/error.h"

namespace xport::runtime {
namespace {

using ir::passes::ConstantGraph;


using ir::detail::ref_of;

std::vector<int64_t> ints_of(const ir::Argument& arg) {
  std::vector<int64_t> out;
  for (const ir::Argument& a : std::get<std::vector<ir::Argument>>(arg.value)) {
    out.push_back(ir::passes::constant_int(std::get<sym::ExprPtr>(a.value)));
  }
  return out;
}

// Gives the fused calls of a graph the runtime's kernels.
class KernelMaker {
 public:
  KernelMaker(ConstantGraph& g, PreparedGraph& out) : g_(g), out_(out) {}

  void run() {
    for (ir::Node* node : g_.graph.find_nodes(fused_conv_)) pack_convolution(*node);
    choose_layouts();
    write_over_residuals();
    for (ir::Node* node : g_.graph.find_nodes(fused_linear_)) pack_linear(*node);
    for (const OpDef* op : {&quantized_linear_, &quantized_linear_tensor_, &requantized_linear_,
                            &quantized_conv_, &quantized_conv_tensor_, &requantized_conv_}) {
      for (ir::Node* node : g_.graph.find_nodes(*op)) pack_quantized(*node);
    }
    choose_quantized_layouts();
    write_quantized_over_residuals();
    for (ir::Node* node : g_.graph.find_nodes(fused_pointwise_)) chain_pointwise(*node);
  }

 private:
  ConstantGraph& g_;
  PreparedGraph& out_;
  const OpDef& fused_conv_ = find_op("xport::fused_conv2d");
  const OpDef& fused_conv_in_place_ = find_op("xport::fused_conv2d_");
  const OpDef& fused_linear_ = find_op("xport::fused_linear");
  const OpDef& fused_pointwise_ = find_op("xport::fused_pointwise");
  const OpDef& quantized_linear_ = find_op("xport::quantized_linear");
  const OpDef& requantized_linear_ = find_op("xport::requantized_linear");
  const OpDef& quantized_linear_tensor_ = find_op("xport::quantized_linear.tensor");
  const OpDef& quantized_conv_ = find_op("xport::quantized_conv2d");
  const OpDef& quantized_conv_tensor_ = find_op("xport::quantized_conv2d.tensor");
  const OpDef& requantized_conv_ = find_op("xport::requantized_conv2d");
  const OpDef& requantized_conv_in_place_ = find_op("xport::requantized_conv2d_");
  const OpDef& quantized_add_ = find_op("xport::quantized_add");
  const OpDef& quantized_lookup_ = find_op("xport::quantized_lookup");
  const OpDef& max_pool2d_ = find_op("aten::max_pool2d");
  struct Convolution {
    const ir::Node* node;
    std::shared_ptr<kernels::cpu::PackedConv2d> packed;
    int64_t groups;
    kernels::cpu::ConvLayouts layouts = {};
  };
  std::vector<Convolution> convolutions_;
  // The packed integer convolutions, by call.
  std::unordered_map<const ir::Node*, std::shared_ptr<kernels::cpu::PackedQuantizedConv2d>>
      quantized_convolutions_;
  std::unordered_map<const ir::Node*, kernels::cpu::ConvLayouts> quantized_layouts_;

  static KernelFn conv_kernel(std::shared_ptr<const kernels::cpu::PackedConv2d> packed) {
    return [packed](const OpArgs& a, std::vector<Tensor>& outs) {
      packed->run(a.tensor("input"), a.optional_tensor("residual"), outs[0]);
    };
  }

  // A convolution call's stride, padding, dilation and groups (known integers).
  static kernels::cpu::Conv2dParams conv_params_of(const ir::Node& node) {
    return kernels::cpu::Conv2dParams::of(
        ints_of(node.arg("stride")), ints_of(node.arg("padding")), ints_of(node.arg("dilation")),
        ir::passes::constant_int(std::get<sym::ExprPtr>(node.arg("groups").value)));
  }

  void pack_convolution(const ir::Node& node) {
    const Tensor weight = g_.constant(node.arg("weight"));
    const Tensor bias = node.arg("bias").is_none() ? Tensor() : g_.constant(node.arg("bias"));
    if (!weight.defined() || (!node.arg("bias").is_none() && !bias.defined())) return;
    const kernels::cpu::Conv2dParams params = conv_params_of(node);
    kernels::cpu::ConvEpilogue epilogue;
    epilogue.residual = !node.arg("residual").is_none();
    epilogue.relu = std::get<bool>(node.arg("relu").value);
    auto packed = std::make_shared<kernels::cpu::PackedConv2d>(weight, bias, params, epilogue);
    out_.kernels[&node] = conv_kernel(packed);
    out_.packed[&node] = PackedCall{.conv = packed};
    convolutions_.push_back({&node, std::move(packed), params.groups});
  }

  struct Passing {
    bool writes;               // may write its result channels-last
    bool reads;                // may read its input and residual so
    bool elementwise = false;  // reads its operands (self, other; not a constant table) and
                               // writes its result in one layout, whichever it is
  };

  // A convolution's result that only other (ungrouped) packed convolutions read, as input or
  // residual, stays in oneDNN's layout (channels-last, or blocked for larger batches:
  // kernels::cpu::ConvLayouts): neither side reorders it.
  // A max pool between them (ResNet's stem) reads and writes their layout too.
  void choose_layouts() {
    std::unordered_map<const ir::Node*, Passing> calls;
    for (const Convolution& c : convolutions_) {
      calls[c.node] = {.writes = true, .reads = c.groups == 1};
    }
    add_max_pools(calls, {DType::Float32});
    const auto layouts = channels_last_layouts(calls);
    for (Convolution& c : convolutions_) {
      c.layouts = layouts.at(c.node);
      c.packed->set_layouts(c.layouts);
      out_.stats.channels_last += c.layouts.dst_nhwc ? 1 : 0;
    }
    pool_passed_layouts(layouts);
  }

  // The max pools (values only, of 4-D tensors) of these dtypes, as calls that read and write
  // one layout, as an elementwise call does.
  void add_max_pools(std::unordered_map<const ir::Node*, Passing>& calls,
                     std::initializer_list<DType> dtypes) const {
    for (const ir::Node* node : g_.graph.find_nodes(max_pool2d_)) {
      const ir::TensorSpec& out = node->outputs()[0];
      if (out.sizes.size() == 4 && std::find(dtypes.begin(), dtypes.end(), out.dtype) !=
                                       dtypes.end()) {
        calls[node] = {.writes = true, .reads = true, .elementwise = true};
      }
    }
  }

  // Each of those pools whose result stays in the convolutions' layout gets its own kernel, a
  // Unary packed call (the compiled library calls it too).
  void pool_passed_layouts(
      const std::unordered_map<const ir::Node*, kernels::cpu::ConvLayouts>& layouts) {
    for (const auto& [node, layout] : layouts) {
      if (node->op() != &max_pool2d_ || !layout.dst_nhwc) continue;
      const kernels::cpu::Pool2d pool = kernels::cpu::pool_window<2>(
          ints_of(node->arg("kernel_size")), ints_of(node->arg("stride")),
          ints_of(node->arg("padding")), ints_of(node->arg("dilation")));
      PackedCall call{.kind = PackedCall::Kind::Unary};
      // 8-bit values between integer convolutions are NHWC; float32 ones are in the layout
      // packed convolutions pass them in.
      call.unary = [pool](const Tensor& input, const Tensor& out) {
        const std::vector<int64_t> sizes = input.int_sizes();
        const int64_t block = input.dtype() == DType::Float32
                                  ? kernels::cpu::passed_channel_block(sizes)
                                  : sizes[1];
        kernels::cpu::max_pool2d_channels_inner(input, pool, block, out);
      };
      out_.kernels[node] = [unary = call.unary](const OpArgs& a, std::vector<Tensor>& outs) {
        unary(a.tensor("self"), outs[0]);
      };
      out_.packed[node] = std::move(call);
      ++out_.stats.pools_channels_last;
    }
  }

  // The same for the integer convolutions of static quantization: a requantized result that
  // only they read stays NHWC, as oneDNN's integer kernels read and write it. A quantized add
  // between them passes the layout of its operands on (it is elementwise over memory).
  void choose_quantized_layouts() {
    std::unordered_map<const ir::Node*, Passing> calls;
    for (const auto& [node, packed] : quantized_convolutions_) {
      calls[node] = {.writes = packed->takes_layouts(), .reads = packed->takes_layouts()};
    }
    for (const OpDef* op : {&quantized_add_, &quantized_lookup_}) {
      for (const ir::Node* node : g_.graph.find_nodes(*op)) {
        calls[node] = {.writes = true, .reads = true, .elementwise = true};
      }
    }
    // A max pool of 8-bit values reads and writes one layout too.
    add_max_pools(calls, {DType::UInt8, DType::Int8});
    quantized_layouts_ = channels_last_layouts(calls);
    pool_passed_layouts(quantized_layouts_);
    for (const auto& [node, layouts] : quantized_layouts_) {
      if (node->op() == &max_pool2d_) continue;
      if (node->op() == &quantized_add_ || node->op() == &quantized_lookup_) {
        (node->op() == &quantized_add_ ? out_.stats.quantized_adds_channels_last
                                       : out_.stats.lookups_channels_last) +=
            layouts.dst_nhwc ? 1 : 0;
        continue;
      }
      quantized_convolutions_.at(node)->set_layouts(layouts);
      out_.stats.quantized_channels_last += layouts.dst_nhwc ? 1 : 0;
    }
  }


  // For each of `calls`: which of its input, residual and result are channels-last. A result
  // is, where its call may write it so and every reader is one of `calls` that may read it so
  // (a convolution as its input or residual; an elementwise call as an operand, its result
  // channels-last too); an elementwise call's result is, where all its operands are.
  std::unordered_map<const ir::Node*, kernels::cpu::ConvLayouts> channels_last_layouts(
      const std::unordered_map<const ir::Node*, Passing>& calls) const {
    const auto is_arg = [](const ir::Node& user, const ir::Argument& arg, const char* name) {
      return user.op()->arg_position(name) >= 0 && &arg == &user.arg(name);
    };
    // Every call that may write channels-last starts so; a result whose readers cannot all
    // read it so is dropped, until nothing changes (an elementwise call's result and operands
    // go together).
    std::unordered_map<const ir::Node*, bool> nhwc;
    for (const auto& [node, passing] : calls) {
      nhwc[node] = passing.writes && !g_.graph.users(node).empty();
    }
    const auto is_operand = [&](const ir::Node& user, const ir::Argument& arg) {
      return is_arg(user, arg, "self") || is_arg(user, arg, "other");
    };
    const auto keeps = [&](const ir::Node* node) {
      const Passing& passing = calls.at(node);
      if (passing.elementwise) {
        for (const ir::Argument& arg : node->args()) {
          const ir::ValueRef* ref = ref_of(arg);
          if (ref != nullptr && is_operand(*node, arg) &&
              (!nhwc.count(ref->node) || !nhwc.at(ref->node))) {
            return false;
          }
        }
      }
      for (const ir::Node* user : g_.graph.users(node)) {
        const auto it = calls.find(user);
        if (it == calls.end() || !it->second.reads || (it->second.elementwise && !nhwc.at(user))) {
          return false;
        }
        for (const ir::Argument& arg : user->args()) {
          const ir::ValueRef* ref = ref_of(arg);
          const bool read_so = it->second.elementwise
                                   ? is_operand(*user, arg)
                                   : is_arg(*user, arg, "input") || is_arg(*user, arg, "residual");
          if (ref != nullptr && ref->node == node && !read_so) return false;
        }
      }
      return true;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& [node, channels_last] : nhwc) {
        if (channels_last && !keeps(node)) channels_last = false, changed = true;
      }
    }
    const auto written_so = [&](const ir::Node& node, const char* name) {
      if (node.op()->arg_position(name) < 0) return false;
      const ir::ValueRef* ref = ref_of(node.arg(name));
      return ref != nullptr && nhwc.count(ref->node) && nhwc.at(ref->node);
    };
    std::unordered_map<const ir::Node*, kernels::cpu::ConvLayouts> layouts;
    for (const auto& [node, channels_last] : nhwc) {
      layouts[node] = {.src_nhwc = written_so(*node, "input"),
                       .residual_nhwc = written_so(*node, "residual"),
                       .dst_nhwc = channels_last};
    }
    return layouts;
  }

  // A convolution that is the last reader of its residual, in the layout it writes, writes its
  // result over it (may_write_over).
  void write_over_residuals() {
    std::unordered_set<const ir::Node*> written_over;
    for (const Convolution& c : convolutions_) {
      if (c.layouts.residual_nhwc != c.layouts.dst_nhwc || !may_write_over(*c.node, written_over)) {
        continue;
      }
      written_over.insert(write_in_place(*c.node, fused_conv_in_place_));
      ++out_.stats.residuals_in_place;
    }
  }

  // The same for the integer convolutions that add a quantized residual.
  void write_quantized_over_residuals() {
    std::unordered_set<const ir::Node*> written_over;
    for (ir::Node* node : g_.graph.find_nodes(requantized_conv_)) {
      const auto it = quantized_layouts_.find(node);
      if (it == quantized_layouts_.end() || it->second.residual_nhwc != it->second.dst_nhwc ||
          !may_write_over(*node, written_over)) {
        continue;
      }
      written_over.insert(write_in_place(*node, requantized_conv_in_place_));
      ++out_.stats.quantized_residuals_in_place;
    }
  }

  // Whether `node`, a convolution adding a residual, may write its result over it: the residual
  // is the one result of a functional call (or of a convolution in `written_over`, which wrote
  // over its own), of the result's dtype and sizes; nothing reads it after `node`, and no other
  // argument of `node` is it (the input is read while the result is written).
  bool may_write_over(const ir::Node& node,
                      const std::unordered_set<const ir::Node*>& written_over) const {
    const ir::ValueRef* residual = ref_of(node.arg("residual"));
    if (residual == nullptr) return false;
    const ir::Node* producer = residual->node;
    if (producer->kind() != ir::NodeKind::Call || producer->outputs().size() != 1 ||
        (producer->op()->kind != OpKind::Functional && !written_over.count(producer)) ||
        producer->outputs()[0].dtype != node.outputs()[0].dtype ||
        producer->outputs()[0].sizes != node.outputs()[0].sizes) {
      return false;
    }
    bool last = true;
    for (const ir::Node* user : g_.graph.users(producer)) {
      last = last && user->kind() == ir::NodeKind::Call &&
             (user == &node || user->position() < node.position());
    }
    for (const ir::Argument& arg : node.args()) {
      const ir::ValueRef* ref = ref_of(arg);
      last = last && (&arg == &node.arg("residual") || ref == nullptr || ref->node != producer);
    }
    return last;
  }

  // `node` replaced by the call of `in_place` (its form written over the residual) with the
  // same arguments, kernel and packed call.
  const ir::Node* write_in_place(const ir::Node& node, const OpDef& in_place) {
    ir::Node* written = g_.graph.insert_call(node.position() + 1, in_place, node.args(),
                                             node.outputs(), node.meta());
    g_.graph.replace_all_uses(node.out(), written->out());
    out_.kernels[written] = std::move(out_.kernels.at(&node));
    out_.kernels.erase(&node);
    out_.packed[written] = out_.packed.at(&node);
    out_.packed.erase(&node);
    g_.graph.erase(&node);
    return written;
  }

  void pack_linear(const ir::Node& node) {
    using kernels::cpu::LinearActivation;
    const Tensor weight = g_.constant(node.arg("weight"));
    const Tensor bias = node.arg("bias").is_none() ? Tensor() : g_.constant(node.arg("bias"));
    if (!weight.defined() || (!node.arg("bias").is_none() && !bias.defined())) return;
    const LinearActivation activation =
        kernels::cpu::linear_activation(std::get<std::string>(node.arg("activation").value));
    auto packed = std::make_shared<const kernels::cpu::PackedLinear>(weight, bias, activation);
    out_.kernels[&node] = [packed](const OpArgs& a, std::vector<Tensor>& outs) {
      packed->run(a.tensor("input"), outs[0]);
    };
    out_.packed[&node] = PackedCall{.kind = PackedCall::Kind::Linear, .linear = packed};
  }

  // What a requantized_conv2d quantizes its result with (none for the other ops).
  std::optional<kernels::cpu::Requantize> requantize_of(const ir::Node& node) const {
    if (node.op() != &requantized_conv_) return std::nullopt;
    const auto integer = [&node](const char* name) {
      return ir::passes::constant_int(std::get<sym::ExprPtr>(node.arg(name).value));
    };
    return kernels::cpu::Requantize{
        .relu = std::get<bool>(node.arg("relu").value),
        .output_scale = std::get<double>(node.arg("output_scale").value),
        .output_zero_point = integer("output_zero_point"),
        .dtype = std::get<DType>(node.arg("output_dtype").value),
        .residual = !node.arg("residual").is_none(),
        .residual_scale = std::get<double>(node.arg("residual_scale").value),
        .residual_zero_point = integer("residual_zero_point"),
        .quantize_conv = !node.arg("conv_scale").is_none(),
        .conv_scale = node.arg("conv_scale").is_none()
                          ? 1.0
                          : std::get<double>(node.arg("conv_scale").value),
        .conv_zero_point = integer("conv_zero_point"),
        .conv_dtype = node.arg("conv_dtype").is_none()
                          ? DType::Int8
                          : std::get<DType>(node.arg("conv_dtype").value)};
  }

  // What a requantized_linear does after its product (none for the other ops).
  std::optional<kernels::cpu::LinearRequantize> linear_requantize_of(const ir::Node& node) const {
    if (node.op() != &requantized_linear_) return std::nullopt;
    return kernels::cpu::LinearRequantize{
        .activation = kernels::cpu::linear_activation(
            std::get<std::string>(node.arg("activation").value)),
        .output_scale = std::get<double>(node.arg("output_scale").value),
        .output_zero_point =
            ir::passes::constant_int(std::get<sym::ExprPtr>(node.arg("output_zero_point").value)),
        .dtype = std::get<DType>(node.arg("output_dtype").value)};
  }

  // xport::quantized_linear, quantized_conv2d or requantized_conv2d on its int8 weights packed
  // once; the input's scale and zero point are numbers (static quantization: a convolution
  // builds them into its primitive, one per value) or one-element tensors read per run
  // (dynamic).
  void pack_quantized(const ir::Node& node) {
    const Tensor weight = g_.constant(node.arg("weight"));
    const Tensor scales = g_.constant(node.arg("weight_scales"));
    const bool has_bias = !node.arg("bias").is_none();
    const Tensor bias = has_bias ? g_.constant(node.arg("bias")) : Tensor();
    if (!weight.defined() || !scales.defined() || (has_bias && !bias.defined())) return;
    PackedCall call{.kind = PackedCall::Kind::Quantized};
    if (node.op() == &quantized_conv_ || node.op() == &quantized_conv_tensor_ ||
        node.op() == &requantized_conv_) {
      auto conv = std::make_shared<kernels::cpu::PackedQuantizedConv2d>(
          weight, scales, bias, conv_params_of(node), requantize_of(node),
          /*fixed_input_scale=*/node.op() != &quantized_conv_tensor_);
      quantized_convolutions_[&node] = conv;
      call.quantized_conv = std::move(conv);
    } else {
      call.quantized_linear = std::make_shared<const kernels::cpu::PackedQuantizedLinear>(
          weight, scales, bias, /*fixed_input_scale=*/node.op() != &quantized_linear_tensor_,
          linear_requantize_of(node));
    }
    const bool residual = node.op() == &requantized_conv_ && !node.arg("residual").is_none();
    out_.kernels[&node] = [call, residual](const OpArgs& a, std::vector<Tensor>& outs) {
      const bool tensors = a["input_scale"].is_tensor();
      const double scale =
          tensors ? a.tensor("input_scale").item<double>() : a.real("input_scale");
      const int64_t zero_point = tensors ? a.tensor("input_zero_point").item<int64_t>()
                                         : a.integer("input_zero_point");
      run_quantized(call, a.tensor("input"), scale, zero_point,
                    residual ? a.tensor("residual") : Tensor(), outs[0]);
    };
    out_.packed[&node] = std::move(call);
  }

  // The subgraph's calls as PointwiseChain steps: each reads the body's inputs and the call
  // before it (the shape the fusion pass gives).
  void chain_pointwise(const ir::Node& node) {
    const ir::Graph& body = *std::get<ir::SubgraphRef>(node.arg("body").value).graph;
    std::vector<PointwiseStep> steps;
    const ir::Node* previous = nullptr;
    for (const auto& n : body.nodes()) {
      if (n->kind() != ir::NodeKind::Call) continue;
      PointwiseStep step;
      step.op = n->op();
      if (!step.op->kernel) return;
      const auto& arguments = step.op->parsed.arguments;
      for (size_t i = 0; i < n->args().size(); ++i) {
        const ir::ValueRef* ref = ref_of(n->args()[i]);
        if (ref != nullptr) {
          const bool input = ref->node->kind() == ir::NodeKind::Placeholder;
          if (!input && ref->node != previous) return;
          step.tensor_args.emplace_back(i, input ? static_cast<int>(ref->node->position()) : -1);
        }
        step.args.push_back(ir::argument_value(
            n->args()[i], arguments[i].type, [](const ir::ValueRef&) { return Tensor(); },
            ir::passes::constant_int));
      }
      steps.push_back(std::move(step));
      previous = n.get();
    }
    auto chain = std::make_shared<const PointwiseChain>(std::move(steps));
    out_.kernels[&node] = [chain](const OpArgs& a, std::vector<Tensor>& outs) {
      chain->run(a.tensors("inputs"), outs[0]);
    };
    out_.packed[&node] = PackedCall{.kind = PackedCall::Kind::PointwiseChain};
  }
};

}  // namespace

std::string PreparedStats::str() const {
  const ir::passes::FusionStats& f = fusion;
  std::ostringstream out;
  const auto part = [&out]() -> std::ostringstream& {
    if (out.tellp() > 0) out << "; ";
    return out;
  };
  if (folded > 0) part() << folded << " calls on constants folded";
  if (f.gelus > 0) part() << f.gelus << " GELUs written out elementwise taken as aten::gelu";
  if (f.convolutions > 0) {
    part() << f.convolutions << " convolutions on packed weights (" << f.batch_norms
           << " batch norms folded in, " << f.residuals << " residual adds and " << f.relus
           << " ReLUs in their epilogues, " << residuals_in_place
           << " written over their residual; " << channels_last
           << " results passed on in oneDNN's layout)";
  }
  if (f.quantized.convolutions > 0) {
    part() << f.quantized.convolutions << " convolutions on int8 weights (PT2E's quantized "
           << "layers; " << f.quantized.requantized << " quantizing their own results, "
           << f.quantized.residuals << " adding their residual (" << quantized_residuals_in_place
           << " written over it); " << quantized_channels_last
           << " results passed on in NHWC)";
  }
  if (f.quantized.adds.adds > 0) {
    part() << f.quantized.adds.adds << " quantized adds (dequantize, add, [ReLU,] quantize: "
           << f.quantized.adds.into_convolutions << " in the convolution before them, the "
           << "others in one pass; " << quantized_adds_channels_last
           << " results passed on in NHWC)";
  }
  if (f.quantized.chains.moves > 0) {
    part() << f.quantized.chains.moves << " views, copies and max pools on 8-bit integers "
           << "(between a dequantize and a quantize of one scale)";
  }
  if (pools_channels_last > 0) {
    part() << pools_channels_last << " max pools in the convolutions' layout";
  }
  if (f.quantized.chains.lookups > 0) {
    part() << f.quantized.chains.lookups << " elementwise chains on 8-bit integers as tables of "
           << "256 (" << lookups_channels_last << " results passed on in NHWC)";
  }
  if (f.unsigned_results > 0) {
    part() << f.unsigned_results << " int8 results carried as uint8 (the value + 128, "
           << "its zero point + 128)";
  }
  if (f.quantized.linears > 0) {
    part() << f.quantized.linears << " matrix products on int8 weights (PT2E's quantized "
           << "layers; " << f.quantized.requantized_linears << " quantizing their own results)";
  }
  if (f.quantized.weight_only > 0) {
    part() << f.quantized.weight_only << " matrix products of float inputs by integer weights "
           << "(weight-only quantization)";
  }
  if (f.quantized.bf16 > 0) {
    part() << f.quantized.bf16 << " matrix products and gathers on bfloat16 weights";
  }
  if (f.linears > 0) {
    part() << f.linears << " matrix products on packed weights (" << f.activations
           << " activations in their epilogues)";
  }
  if (expansion.expanded > 0) {
    part() << expansion.expanded << " composite ops expanded into the calls they make";
  }
  if (expansion.kept > 0) {
    part() << expansion.kept << " composite ops left to run as their decomposition (the first, "
           << expansion.first_kept << ")";
  }
  if (f.pointwise_chains > 0) {
    part() << f.pointwise_chains << " chains of elementwise ops in one pass (" << f.pointwise_ops
           << " ops)";
  }
  return out.tellp() > 0 ? out.str() : "nothing to fuse";
}

void run_quantized(const PackedCall& call, const Tensor& input, double input_scale,
                   int64_t input_zero_point, const Tensor& residual, const Tensor& out) {
  if (call.quantized_conv) {
    call.quantized_conv->run(input, input_scale, input_zero_point, residual, out);
  } else {
    call.quantized_linear->run(input, input_scale, input_zero_point, out);
  }
}

PreparedGraph prepare_graph(const ir::Graph& graph, const std::vector<SymbolSpec>& symbols,
                            std::vector<Tensor> placeholders,
                            std::vector<bool> is_user_input,
                            const std::vector<ir::InputUpdate>& updates, bool optimize) {
  PreparedGraph out;
  out.is_user_input = std::move(is_user_input);
  ConstantGraph g{graph.clone(), {}};
  // Fusion works on sizes known at load, so a graph with data-dependent sizes runs unfused.
  if (optimize && !compile_graph(g.graph).has_unbacked) {
    g.constants = placeholders;
    for (const ir::InputUpdate& u : updates) g.constants.at(u.input) = Tensor();
    for (size_t p = 0; p < g.constants.size(); ++p) {
      if (out.is_user_input[p]) g.constants[p] = Tensor();
    }
    out.stats.folded = ir::passes::fold_constants(g);
    out.stats.fusion = ir::passes::fuse_operators(g);
    // After fusion, which takes PyTorch's aten::linear and aten::conv2d as they are.
    out.stats.expansion = ir::passes::expand_composites(g.graph, [&symbols](sym::ExprPtr s) {
      for (const SymbolSpec& spec : symbols) {
        if (spec.name == s->name()) return spec.range;
      }
      return sym::Range{};
    });
    KernelMaker(g, out).run();
    for (size_t p = placeholders.size(); p < g.constants.size(); ++p) {
      placeholders.push_back(g.constants[p]);
      out.is_user_input.push_back(false);
    }
  }
  out.in_place_outputs = ir::passes::reinplace_updates(g.graph, updates);
  out.graph = std::move(g.graph);
  out.placeholders = std::move(placeholders);
  return out;
}

}  // namespace xport::runtime
