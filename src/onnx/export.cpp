// xport::onnx::save: the program's core graph as an ONNX model (see docs/ONNX.md).
#include <onnx/checker.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "onnx/contract_metadata.h"
#include "onnx/lowering.h"
#include "xport/error.h"
#include "xport/onnx.h"

namespace xport::onnx {
namespace {

// ONNX's IR version for opset 17.
constexpr int64_t kIrVersion = 8;
// Protobuf refuses messages past 2 GB: beyond this many bytes of weights they go to a file of
// their own beside the model (ONNX's external data).
constexpr int64_t kExternalDataThreshold = int64_t{1} << 30;

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

::onnx::TensorProto initializer(const std::string& name, const Tensor& value) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx_type(value.dtype()));
  for (int64_t d : value.int_sizes()) t.add_dims(d);
  const Tensor c = value.contiguous();
  t.set_raw_data(std::string(static_cast<const char*>(c.raw_data()),
                             static_cast<size_t>(c.int_numel() * c.element_size())));
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

::onnx::ModelProto build_model(const ExportedProgram& program, const Options& options) {
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
      *graph.add_input() = value_info(p->name(), spec, true, names);
      user_inputs.push_back(p);
      continue;
    }
    const auto value = program.state().find(in.target);
    XPORT_CHECK(value != program.state().end(), Internal, "onnx: no value for ", in.target);
    *graph.add_initializer() = initializer(p->name(), value->second);
    // An updated buffer is an input too, its initializer the default: whoever runs the model
    // feeds the updated value back (docs/ONNX.md).
    if (in.kind == InputSpec::Kind::Buffer && mutated.count(in.target)) {
      *graph.add_input() = value_info(p->name(), spec, true, names);
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
    *graph.add_output() = value_info(name, spec, true, names);
  }

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

// Moves weights of a model past kExternalDataThreshold bytes into `data_path` (ONNX's external
// data: each tensor's location, offset and length).
void externalize(::onnx::ModelProto& model, const std::string& data_path,
                 const std::string& location) {
  int64_t total = 0;
  for (const auto& t : model.graph().initializer()) total += static_cast<int64_t>(t.raw_data().size());
  if (total <= kExternalDataThreshold) return;
  std::ofstream data(data_path, std::ios::binary);
  XPORT_CHECK(data.good(), InvalidInput, "onnx::save: cannot write ", data_path);
  int64_t offset = 0;
  for (auto& t : *model.mutable_graph()->mutable_initializer()) {
    if (t.raw_data().size() < 1024) continue;
    data.write(t.raw_data().data(), static_cast<std::streamsize>(t.raw_data().size()));
    auto entry = [&](const std::string& key, const std::string& value) {
      auto* e = t.add_external_data();
      e->set_key(key);
      e->set_value(value);
    };
    entry("location", location);
    entry("offset", std::to_string(offset));
    entry("length", std::to_string(t.raw_data().size()));
    offset += static_cast<int64_t>(t.raw_data().size());
    t.set_data_location(::onnx::TensorProto::EXTERNAL);
    t.clear_raw_data();
  }
  XPORT_CHECK(data.good(), InvalidInput, "onnx::save: writing ", data_path, " failed");
}

}  // namespace

void save(const ExportedProgram& program, const std::string& path, Options options) {
  XPORT_CHECK(options.opset == 17, InvalidInput, "onnx::save: opset ", options.opset,
              " is not supported; use 17 (the newest opset the ONNX library here knows)");
  const ExportedProgram core = program.run_decompositions();
  ::onnx::ModelProto model = build_model(core, options);
  try {
    ::onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    XPORT_FAIL(Internal, "onnx::save: the ONNX checker refuses the model: ", e.what());
  }
  // Written beside the destination and renamed into place, so a failure leaves no file.
  const std::string suffix = ".tmp" + std::to_string(::getpid());
  const std::string data_name = std::filesystem::path(path).filename().string() + ".data";
  const std::string data_path = path + ".data";
  try {
    externalize(model, data_path + suffix, data_name);
    std::ofstream out(path + suffix, std::ios::binary);
    XPORT_CHECK(out.good(), InvalidInput, "onnx::save: cannot write ", path);
    XPORT_CHECK(model.SerializeToOstream(&out), InvalidInput, "onnx::save: writing ", path,
                " failed");
    out.close();
    XPORT_CHECK(out.good(), InvalidInput, "onnx::save: writing ", path, " failed");
    if (std::filesystem::exists(data_path + suffix)) {
      std::filesystem::rename(data_path + suffix, data_path);
    }
    std::filesystem::rename(path + suffix, path);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(path + suffix, ignored);
    std::filesystem::remove(data_path + suffix, ignored);
    throw;
  }
}

}  // namespace xport::onnx
