// quant::convert: each observer of a prepared program becomes quantize_per_tensor and
// dequantize_per_tensor at the range it saw (uint8, affine), read by the quantized layers that
// it observed; the observers and their buffers go.
#include <string>
#include <utility>

#include "ir/ir_util.h"
#include "quant/layers.h"
#include "quant/qparams.h"
#include "xport/quant/quant.h"

namespace xport::quant {
namespace {

using xport::detail::ProgramParts;

bool is_observer(const std::string& target) { return target.rfind("observers.", 0) == 0; }

// "observers.3.min" -> "observers.3".
std::string observer_of(const std::string& target) {
  return target.substr(0, target.rfind('.'));
}

struct Observer {
  std::string name;
  float low = 0, high = 0;
  const ir::Node* update = nullptr;  ///< aten::minimum(buffer, aten::amin(x))
};

// Where one layer reads `x`: its source line, for the error of an observer that saw nothing.
std::string read_at(const ir::Graph& graph, const ir::Node* x_node) {
  for (const ir::Node* user : graph.users(x_node)) {
    const auto layer = detail::layer_of(const_cast<ir::Node*>(user));
    if (layer && detail::is_quantized(*layer)) {
      return "%" + user->name() + (user->meta().source.empty() ? "" : " at " + user->meta().source);
    }
  }
  return "%" + x_node->name();
}

}  // namespace

ExportedProgram convert(const ExportedProgram& prepared) {
  ProgramParts p = ProgramParts::of(prepared);
  std::vector<Observer> observers;
  const ir::Node* out = p.graph.output();
  for (size_t i = 0; i < p.signature.outputs.size(); ++i) {
    const OutputSpec& o = p.signature.outputs[i];
    if (o.kind != OutputSpec::Kind::BufferMutation || !is_observer(o.target)) continue;
    if (o.target.size() < 4 || o.target.substr(o.target.size() - 4) != ".min") continue;
    const std::string name = observer_of(o.target);
    const ir::ValueRef* update = ir::detail::ref_of(out->args()[i]);
    XPORT_CHECK(update != nullptr, InvalidInput, "quant::convert: ", name, " is not an observer "
                "prepare wrote");
    observers.push_back({name, p.state.at(name + ".min").item<float>(),
                         p.state.at(name + ".max").item<float>(), update->node});
  }
  for (const Observer& obs : observers) {
    // aten::minimum(buffer, aten::amin(x)): x is what the observer watched.
    const ir::ValueRef* reduced = ir::detail::ref_of(obs.update->arg("other"));
    XPORT_CHECK(reduced != nullptr, InvalidInput, "quant::convert: ", obs.name,
                " is not an observer prepare wrote");
    const ir::ValueRef x = *ir::detail::ref_of(reduced->node->arg("self"));
    XPORT_CHECK(obs.low <= obs.high, InvalidInput, "quant::convert: observer ", obs.name,
                " (the input of ", read_at(p.graph, x.node), ") saw no values: run the prepared "
                "program (ExportedProgram::run) on calibration inputs before convert");
    const detail::TensorParams q = detail::affine_params(obs.low, obs.high, 0, 255);
    const ir::TensorSpec& spec = x.node->outputs()[x.index];
    std::vector<detail::Layer> layers;
    for (const ir::Node* user : p.graph.users(x.node)) {
      const auto layer = detail::layer_of(const_cast<ir::Node*>(user));
      if (layer && detail::is_quantized(*layer) && layer->input == x) layers.push_back(*layer);
    }
    if (layers.empty()) continue;
    ir::Node& first = *layers.front().node;
    const ir::Node* quantized = p.graph.insert_call(
        first.position(), find_op("quantized_decomposed::quantize_per_tensor"),
        {x, q.scale, q.zero_point, int64_t{0}, int64_t{255}, DType::UInt8},
        {ir::TensorSpec::contiguous(DType::UInt8, spec.sizes)}, first.meta());
    const ir::Node* dequantized = p.graph.insert_call(
        first.position(), find_op("quantized_decomposed::dequantize_per_tensor"),
        {quantized->out(), q.scale, q.zero_point, int64_t{0}, int64_t{255}, DType::UInt8,
         ir::Argument()},
        {ir::TensorSpec::contiguous(DType::Float32, spec.sizes)}, first.meta());
    for (const detail::Layer& layer : layers) {
      p.graph.set_args(layer.node,
                       detail::with_arg(*layer.node, layer.input_arg, dequantized->out()));
    }
  }
  p.remove_buffer_updates(is_observer);
  p.remove_dead_code();
  return std::move(p).build();
}

}  // namespace xport::quant
