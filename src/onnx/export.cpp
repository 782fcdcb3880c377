// xport::onnx::save: the program's core graph as an ONNX model (see docs/ONNX.md).
#include <onnx/checker.h>

#include <map>

#include "onnx/contract_metadata.h"
#include "onnx/lowering.h"
#include "onnx/model_writer.h"
#include "program/specialize.h"
#include "xport/core/error.h"
#include "xport/onnx/onnx.h"

namespace xport::onnx {
namespace {

// ONNX's IR version for opset 17.
constexpr int64_t kIrVersion = 8;

// A dim printed with the user's Dim names (`batch`, `2*batch`), symbols without one by name.
std::function<std::string(sym::ExprPtr)> dim_names(const ExportedProgram& program) {
  std::unordered_map<std::string, std::string> names;
  for (const SymbolSpec& s : program.symbols()) {
    if (!s.dim_name.empty()) names[s.name] = s.dim_name;
  }
  return [names](sym::ExprPtr symbol) {
    auto it = names.find(symbol->name());
    return it == names.end() ? symbol->name() : it->second;
  };
}

// A weight's description; its bytes are written straight from the tensor (write_model), and
// until then one element's worth of zeros stands in for them, so the checker sees a value.
::onnx::TensorProto initializer(const std::string& name, const Tensor& value) {
  ::onnx::TensorProto t;
  t.set_name(name);
  // A complex weight is its (real, imaginary) pairs: a trailing dim of 2, same bytes.
  const bool complex = is_complex(value.dtype());
  t.set_data_type(onnx_type(complex ? complex_part(value.dtype()) : value.dtype()));
  for (int64_t d : value.int_sizes()) t.add_dims(d);
  if (complex) t.add_dims(2);
  t.set_raw_data(std::string(static_cast<size_t>(value.element_size()), '\0'));
  return t;
}

// Each backed symbol's value, from the first user input dim that is it (or an affine form of
// it: a dim of 2*s0 gives s0 = dim / 2).
void bind_input_symbols(GraphBuilder& g, const std::vector<const ir::Node*>& inputs) {
  std::unordered_map<sym::ExprPtr, bool> bound;
  for (int pass = 0; pass < 2; ++pass) {
    for (const ir::Node* p : inputs) {
      const std::vector<sym::ExprPtr>& sizes = p->outputs()[0].sizes;
      for (size_t d = 0; d < sizes.size(); ++d) {
        const std::optional<sym::Affine> f = sym::as_affine(sizes[d]);
        if (!f || bound[f->symbol] || (pass == 0 && (f->a != 1 || f->b != 0))) continue;
        const auto dim = static_cast<int64_t>(d);
        std::string v = g.add("Shape", {p->name()}, {attr("start", dim), attr("end", dim + 1)},
                              f->symbol->name());
        if (f->b != 0) v = g.add("Sub", {v, g.ints({f->b})}, {}, f->symbol->name());
        if (f->a != 1) v = g.add("Div", {v, g.ints({f->a})}, {}, f->symbol->name());
        g.bind_symbol(f->symbol, v);
        bound[f->symbol] = true;
      }
    }
  }
}

// Every name the nodes of `graph` and of its bodies read.
void collect_reads(const ::onnx::NodeProto& node, std::unordered_set<std::string>& reads) {
  for (const std::string& in : node.input()) reads.insert(in);
  for (const ::onnx::AttributeProto& a : node.attribute()) {
    if (!a.has_g()) continue;
    for (const ::onnx::NodeProto& inner : a.g().node()) collect_reads(inner, reads);
    for (const auto& out : a.g().output()) reads.insert(out.name());
  }
}

// Drops the nodes and initializers nothing reads (a weight the program never uses, a constant a
// lowering made and did not need), so engines do not warn about them.
void prune_unused(::onnx::GraphProto& graph) {
  std::unordered_set<std::string> reads;
  for (const auto& out : graph.output()) reads.insert(out.name());
  std::vector<bool> keep(static_cast<size_t>(graph.node_size()), false);
  for (int i = graph.node_size() - 1; i >= 0; --i) {
    const ::onnx::NodeProto& node = graph.node(i);
    bool used = false;
    for (const std::string& out : node.output()) used = used || reads.count(out) > 0;
    keep[static_cast<size_t>(i)] = used;
    if (used) collect_reads(node, reads);
  }
  ::google::protobuf::RepeatedPtrField<::onnx::NodeProto> kept;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (keep[static_cast<size_t>(i)]) *kept.Add() = std::move(*graph.mutable_node(i));
  }
  graph.mutable_node()->Swap(&kept);
  std::unordered_set<std::string> inputs;
  for (const auto& in : graph.input()) inputs.insert(in.name());
  auto* initializers = graph.mutable_initializer();
  for (int i = initializers->size() - 1; i >= 0; --i) {
    const std::string& name = initializers->Get(i).name();
    if (!reads.count(name) && !inputs.count(name)) initializers->DeleteSubrange(i, 1);
  }
}

::onnx::ModelProto build_model(const ExportedProgram& program, const Options& options,
                               std::map<std::string, Tensor>& weights) {
  ::onnx::ModelProto model;
  model.set_ir_version(kIrVersion);
  model.set_producer_name("xport");
  model.set_producer_version("0.1.0");
  ModelState state;
  state.options = &options;
  state.model = &model;
  ::onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("xport");
  GraphBuilder g(&graph, state, nullptr);
  const auto names = dim_names(program);

  const GraphSignature& sig = program.signature();
  const std::vector<const ir::Node*> placeholders = program.graph().placeholders();
  std::unordered_set<std::string> mutated;
  for (const OutputSpec& o : sig.outputs) {
    if (o.kind == OutputSpec::Kind::BufferMutation) mutated.insert(o.target);
  }
  std::vector<const ir::Node*> user_inputs;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    const InputSpec& in = sig.inputs.at(i);
    const ir::Node* p = placeholders[i];
    const ir::TensorSpec& spec = p->outputs()[0];
    state.names.insert(p->name());
    g.bind(p->out(), p->name());
    if (in.kind == InputSpec::Kind::UserInput) {
      *graph.add_input() = value_info(p->name(), spec, ShapeDetail::kFull, names);
      user_inputs.push_back(p);
      continue;
    }
    const auto value = program.state().find(in.target);
    XPORT_CHECK(value != program.state().end(), Internal, "onnx: no value for ", in.target);
    *graph.add_initializer() = initializer(p->name(), value->second);
    weights[p->name()] = value->second;
    // An updated buffer is an input too, its initializer the default: whoever runs the model
    // feeds the updated value back (docs/ONNX.md).
    if (in.kind == InputSpec::Kind::Buffer && mutated.count(in.target)) {
      *graph.add_input() = value_info(p->name(), spec, ShapeDetail::kFull, names);
    }
  }
  bind_input_symbols(g, user_inputs);

  const std::vector<std::string> results = lower_calls(program.graph(), g);
  std::unordered_set<std::string> produced;
  for (const ::onnx::NodeProto& node : graph.node()) {
    for (const std::string& out : node.output()) produced.insert(out);
  }
  const ir::Node* output = program.graph().output();
  for (size_t i = 0; i < results.size(); ++i) {
    const OutputSpec& o = sig.outputs.at(i);
    const auto& ref = std::get<ir::ValueRef>(output->args()[i].value);
    const ir::TensorSpec& spec = ref.node->outputs().at(static_cast<size_t>(ref.index));
    std::string name = results[i];
    if (o.kind != OutputSpec::Kind::UserOutput) {
      name = g.add("Identity", {name}, {}, "updated_" + o.target);
    } else if (!produced.erase(name)) {
      // An input, an initializer, or a value returned twice: an output needs a node of its own.
      name = g.add("Identity", {name}, {}, o.name);
    }
    *graph.add_output() = value_info(name, spec, ShapeDetail::kFull, names);
  }

  prune_unused(graph);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(options.opset);
  for (const auto& [domain, version] : state.domains) {
    auto* custom = model.add_opset_import();
    custom->set_domain(domain);
    custom->set_version(version);
  }
  write_contract(program, model, names);
  return model;
}

}  // namespace

void save(const ExportedProgram& program, const std::string& path, Options options) {
  XPORT_CHECK(options.opset == 17, InvalidInput, "onnx::save: opset ", options.opset,
              " is not supported; use 17 (the newest opset the ONNX library here knows)");
  const ExportedProgram core = options.static_dims.empty()
                                   ? program.run_decompositions()
                                   : specialize(program, options.static_dims).run_decompositions();
  std::map<std::string, Tensor> weights;
  ::onnx::ModelProto model = build_model(core, options, weights);
  try {
    ::onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    XPORT_FAIL(Internal, "onnx::save: the ONNX checker refuses the model: ", e.what());
  }
  write_model(std::move(model), weights, path);
}

}  // namespace xport::onnx
