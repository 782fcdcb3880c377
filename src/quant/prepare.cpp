// quant::prepare: weights quantized at once, activations observed (StaticInt8) or quantized at
// each run (DynamicInt8), as X86InductorQuantizer's configurations do.
#include <limits>
#include <map>
#include <utility>

#include "quant/layers.h"
#include "quant/qparams.h"
#include "xport/ops/functions.h"
#include "xport/quant/quant.h"

namespace xport::quant {
namespace {

using detail::Layer;
using xport::detail::ProgramParts;

constexpr double kDynamicEps = 0.000244140625;  // 2^-12, X86InductorQuantizer's dynamic eps

ir::TensorSpec like(const ir::TensorSpec& x, DType dtype) {
  return ir::TensorSpec::contiguous(dtype, x.sizes);
}

ir::TensorSpec scalar_spec(DType dtype) { return ir::TensorSpec::contiguous(dtype, {}); }

class Preparer {
 public:
  Preparer(ProgramParts& parts, Config config) : p_(parts), config_(config) {}

  void run() {
    std::vector<ir::Node*> calls;
    for (const auto& node : p_.graph.nodes()) calls.push_back(node.get());
    for (ir::Node* node : calls) {
      const std::optional<Layer> layer = detail::layer_of(node);
      if (!layer) continue;
      const std::optional<InputSpec> weight = detail::float_weight(*layer, p_);
      if (!weight) continue;
      if (config_.scheme == Scheme::WeightOnlyInt4 && layer->convolution) continue;
      const ir::Argument dequantized = quantized_weight(*layer, *weight);
      const ir::Argument input = activation(*layer);
      p_.graph.set_args(layer->weight_reader,
                        detail::with_arg(*layer->weight_reader, layer->weight_arg, dequantized));
      p_.graph.set_args(node, detail::with_arg(*node, layer->input_arg, input));
    }
  }

 private:
  ProgramParts& p_;
  Config config_;
  std::map<std::pair<const ir::Node*, int>, ir::Argument> activations_;  // shared per value
  std::map<std::string, ir::Argument> weights_;  // by target: a weight two layers share
  int observers_ = 0;

  ir::Node* insert(const ir::Node& before, const char* op, std::vector<ir::Argument> args,
                   std::vector<ir::TensorSpec> outputs) {
    return p_.graph.insert_call(before.position(), find_op(op), std::move(args),
                                std::move(outputs), before.meta());
  }

  // The weight as a dequantize op over integer buffers (what convert_pt2e leaves).
  ir::Argument quantized_weight(const Layer& layer, const InputSpec& weight) {
    const std::string& target = weight.target;
    if (const auto it = weights_.find(target); it != weights_.end()) return it->second;
    // Stored [out, in] whatever the program's layout: one per-channel (and per-group) form.
    const Tensor w = layer.weight_in_out ? p_.state.at(target).t().contiguous()
                                         : p_.state.at(target);
    const bool int4 = config_.scheme == Scheme::WeightOnlyInt4;
    if (int4) {
      XPORT_CHECK(w.int_size(1) % config_.group_size == 0, InvalidInput,
                  "quant::prepare: int4 groups of ", config_.group_size,
                  " input features do not divide ", target, "'s ", w.int_size(1),
                  "; choose a group_size that divides it (e.g. 32 or 64)");
    }
    const detail::QuantizedWeight q =
        int4 ? detail::per_group_int4(w, config_.group_size) : detail::per_channel_int8(w);
    const std::string suffix = int4 ? "_int4" : "_int8";
    auto buffer = [&](const std::string& what, const Tensor& value) {
      const ir::Node* n = p_.add_state_input(InputSpec::Kind::Buffer,
                                             "b_" + detail::identifier(target + what),
                                             target + what, value);
      return ir::Argument(n->out());
    };
    const ir::Argument values = buffer(suffix, q.values);
    const ir::Argument scales = buffer("_scales", q.scales);
    const ir::Argument zero_points = buffer("_zero_points", q.zero_points);
    std::vector<sym::ExprPtr> sizes;
    for (int64_t n : w.int_sizes()) sizes.push_back(sym::integer(n));
    const ir::TensorSpec out = ir::TensorSpec::contiguous(DType::Float32, sizes);
    const ir::Node* dequantized =
        int4 ? insert(*layer.weight_reader, "quantized_decomposed::dequantize_per_channel_group",
                      {values, scales, zero_points, int64_t{-8}, int64_t{7}, DType::Int8,
                       config_.group_size, DType::Float32},
                      {out})
             : insert(*layer.weight_reader, "quantized_decomposed::dequantize_per_channel",
                      {values, scales, zero_points, int64_t{0}, int64_t{-128}, int64_t{127},
                       DType::Int8, ir::Argument()},
                      {out});
    if (!layer.weight_in_out) return weights_[target] = dequantized->out();
    ir::TensorSpec view = ir::TensorSpec::contiguous(DType::Float32, {sizes[1], sizes[0]});
    view.strides = {sym::integer(1), sizes[1]};
    const ir::Node* transposed =
        insert(*layer.weight_reader, "aten::permute",
               {dequantized->out(), std::vector<ir::Argument>{int64_t{1}, int64_t{0}}}, {view});
    return weights_[target] = transposed->out();
  }

  // What the layer reads for its input: the float activation (weight-only schemes), through
  // an observer (static), or quantized and dequantized at each run (dynamic).
  ir::Argument activation(const Layer& layer) {
    const ir::TensorSpec& x = layer.input.node->outputs()[layer.input.index];
    const bool quantized = config_.scheme == Scheme::StaticInt8 ||
                           config_.scheme == Scheme::DynamicInt8;
    if (!quantized || x.dtype != DType::Float32) return layer.input;
    const auto key = std::make_pair(layer.input.node, layer.input.index);
    if (const auto it = activations_.find(key); it != activations_.end()) return it->second;
    ir::Argument result = layer.input;
    if (config_.scheme == Scheme::StaticInt8) {
      observe(layer);
    } else {
      const ir::Node* qparams =
          insert(*layer.node, "quantized_decomposed::choose_qparams.tensor",
                 {layer.input, int64_t{0}, int64_t{255}, kDynamicEps, DType::UInt8},
                 {ir::TensorSpec::contiguous(DType::Float64, {sym::integer(1)}),
                  ir::TensorSpec::contiguous(DType::Int64, {sym::integer(1)})});
      const ir::Node* q = insert(*layer.node, "quantized_decomposed::quantize_per_tensor.tensor",
                                 {layer.input, qparams->out(0), qparams->out(1), int64_t{0},
                                  int64_t{255}, DType::UInt8},
                                 {like(x, DType::UInt8)});
      result = insert(*layer.node, "quantized_decomposed::dequantize_per_tensor.tensor",
                      {q->out(), qparams->out(0), qparams->out(1), int64_t{0}, int64_t{255},
                       DType::UInt8, ir::Argument()},
                      {like(x, DType::Float32)})->out();
    }
    activations_[key] = result;
    return result;
  }

  // observers.N.min and .max: the running range of the layer's input.
  void observe(const Layer& layer) {
    const std::string base = "observers." + std::to_string(observers_++);
    const float inf = std::numeric_limits<float>::infinity();
    for (const bool low : {true, false}) {
      const std::string target = base + (low ? ".min" : ".max");
      const ir::Node* buffer = p_.add_state_input(
          InputSpec::Kind::Buffer, "b_" + detail::identifier(target), target,
          full({}, low ? inf : -inf, DType::Float32));
      const ir::Node* reduced =
          insert(*layer.node, low ? "aten::amin" : "aten::amax",
                 {layer.input, std::vector<ir::Argument>{}, false}, {scalar_spec(DType::Float32)});
      const ir::Node* updated = insert(*layer.node, low ? "aten::minimum" : "aten::maximum",
                                       {buffer->out(), reduced->out()},
                                       {scalar_spec(DType::Float32)});
      p_.add_buffer_update(updated->out(), target);
    }
  }
};

}  // namespace

ExportedProgram prepare(const ExportedProgram& program, Config config) {
  XPORT_CHECK(config.scheme != Scheme::WeightOnlyInt4 || config.group_size > 1, InvalidInput,
              "quant::prepare: group_size must be more than 1, got ", config.group_size);
  ProgramParts parts = ProgramParts::of(program);
  Preparer(parts, config).run();
  parts.remove_dead_code();
  return std::move(parts).build();
}

const char* to_string(Scheme scheme) {
  switch (scheme) {
    case Scheme::StaticInt8: return "static-int8";
    case Scheme::DynamicInt8: return "dynamic-int8";
    case Scheme::WeightOnlyInt8: return "int8-weight";
    case Scheme::WeightOnlyInt4: return "int4-weight";
  }
  return "?";
}

Scheme scheme_from_string(const std::string& name) {
  for (Scheme s : {Scheme::StaticInt8, Scheme::DynamicInt8, Scheme::WeightOnlyInt8,
                   Scheme::WeightOnlyInt4}) {
    if (name == to_string(s)) return s;
  }
  XPORT_FAIL(InvalidInput, "quant: no scheme '", name, "'; the schemes are static-int8, "
             "dynamic-int8, int8-weight and int4-weight");
}

}  // namespace xport::quant
