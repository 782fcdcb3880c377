#include "onnx/contract_metadata.h"

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "xport/core/error.h"

namespace xport::onnx {
namespace {

constexpr const char* kFormat = "xport.format";
constexpr const char* kInputs = "xport.inputs";
constexpr const char* kSymbols = "xport.symbols";
constexpr const char* kAssertions = "xport.assertions";
constexpr const char* kOutputs = "xport.outputs";

const char* output_kind(OutputSpec::Kind kind) {
  switch (kind) {
    case OutputSpec::Kind::UserOutput: return "user_output";
    case OutputSpec::Kind::BufferMutation: return "buffer_mutation";
    case OutputSpec::Kind::UserInputMutation: return "user_input_mutation";
  }
  return "";
}

nlohmann::json input_json(const InputContract& in,
                          const std::function<std::string(sym::ExprPtr)>& dim_name) {
  nlohmann::json j{{"name", in.name}, {"kind", to_string(in.kind)}};
  switch (in.kind) {
    case InputContract::Kind::Tensor: {
      j["dtype"] = dtype_name(in.dtype);
      nlohmann::json sizes = nlohmann::json::array();
      for (sym::ExprPtr s : in.sizes) {
        if (auto v = sym::as_int(s)) {
          sizes.push_back(*v);
        } else {
          sizes.push_back(sym::str(s, dim_name));
        }
      }
      j["sizes"] = sizes;
      break;
    }
    case InputContract::Kind::TensorList: {
      nlohmann::json elements = nlohmann::json::array();
      for (const InputContract& e : in.elements) elements.push_back(input_json(e, dim_name));
      j["elements"] = elements;
      break;
    }
    case InputContract::Kind::Int:
    case InputContract::Kind::Bool:
      j["value"] = in.int_value;  // specialised: the model was exported for this value
      break;
    case InputContract::Kind::Float:
      j["value"] = in.float_value;
      break;
  }
  return j;
}

// The runtime assertions of `graph` and its subgraphs, printed with the user's Dim names.
void collect_assertions(const ir::Graph& graph,
                        const std::function<std::string(sym::ExprPtr)>& dim_name,
                        nlohmann::json& out) {
  for (const auto& node : graph.nodes()) {
    if (node->kind() != ir::NodeKind::Call) continue;
    for (const ir::SubgraphRef* sub : node->subgraphs()) {
      collect_assertions(*sub->graph, dim_name, out);
    }
    if (!has_tag(*node->op(), Tag::RuntimeAssert)) continue;
    const ir::Argument& condition = node->arg("self");  // _assert_scalar(Scalar self, str)
    if (const auto* e = std::get_if<sym::ExprPtr>(&condition.value)) {
      out.push_back({{"condition", sym::str(*e, dim_name)}, {"source", node->meta().source}});
    } else {
      out.push_back({{"condition", condition.str()}, {"source", node->meta().source}});
    }
  }
}

void put(::onnx::ModelProto& model, const char* key, const std::string& value) {
  auto* prop = model.add_metadata_props();
  prop->set_key(key);
  prop->set_value(value);
}

std::string range_text(const nlohmann::json& s) {
  std::ostringstream out;
  out << "[" << (s["min"].is_null() ? std::string("-oo") : s["min"].dump()) << ", "
      << (s["max"].is_null() ? std::string("oo") : s["max"].dump()) << "]";
  return out.str();
}

}  // namespace

void write_contract(const ExportedProgram& program, ::onnx::ModelProto& model,
                    const std::function<std::string(sym::ExprPtr)>& dim_name) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const InputContract& in : program.contract()) inputs.push_back(input_json(in, dim_name));
  nlohmann::json symbols = nlohmann::json::array();
  for (const SymbolSpec& s : program.symbols()) {
    nlohmann::json j{{"symbol", s.name},
                     {"name", dim_name(sym::symbol(s.name))},
                     {"source", s.source},
                     {"unbacked", s.unbacked}};
    j["min"] = s.range.lo == sym::Range::kNegInf ? nlohmann::json() : nlohmann::json(s.range.lo);
    j["max"] = s.range.hi == sym::Range::kPosInf ? nlohmann::json() : nlohmann::json(s.range.hi);
    symbols.push_back(j);
  }
  nlohmann::json assertions = nlohmann::json::array();
  collect_assertions(program.graph(), dim_name, assertions);
  // An update names the graph input it is the new value of (a buffer's input, or the user's).
  std::map<std::string, std::string> input_of;
  const std::vector<const ir::Node*> placeholders = program.graph().placeholders();
  for (size_t i = 0; i < placeholders.size(); ++i) {
    const InputSpec& in = program.signature().inputs.at(i);
    input_of[in.kind == InputSpec::Kind::UserInput ? in.name : in.target] =
        placeholders[i]->name();
  }
  nlohmann::json outputs = nlohmann::json::array();
  for (const OutputSpec& o : program.signature().outputs) {
    nlohmann::json j{{"kind", output_kind(o.kind)}, {"target", o.target}};
    if (o.kind != OutputSpec::Kind::UserOutput) j["input"] = input_of[o.target];
    outputs.push_back(j);
  }
  put(model, kFormat, "1");
  put(model, kInputs, inputs.dump());
  put(model, kSymbols, symbols.dump());
  put(model, kAssertions, assertions.dump());
  put(model, kOutputs, outputs.dump());
}

std::string describe_contract(const ::onnx::ModelProto& model) {
  std::map<std::string, nlohmann::json> props;
  for (const auto& p : model.metadata_props()) {
    if (p.key().rfind("xport.", 0) != 0 || p.key() == kFormat) continue;
    try {
      props[p.key()] = nlohmann::json::parse(p.value());
    } catch (const nlohmann::json::exception& e) {
      XPORT_FAIL(InvalidArchive, "onnx: metadata_props '", p.key(), "' is not JSON: ", e.what());
    }
  }
  if (props.empty()) return {};
  std::ostringstream out;
  out << "contract (metadata_props, not checked by ONNX engines):\n";
  for (const auto& in : props[kInputs]) {
    out << "  input " << in.value("name", "") << ": " << in.value("kind", "");
    if (in.contains("dtype")) out << " " << in["dtype"].get<std::string>();
    if (in.contains("sizes")) out << " " << in["sizes"].dump();
    if (in.contains("value")) out << " = " << in["value"].dump();
    out << "\n";
  }
  for (const auto& s : props[kSymbols]) {
    out << "  " << s.value("name", "") << " in " << range_text(s);
    if (s.value("unbacked", false)) out << " (data-dependent)";
    if (!s.value("source", "").empty()) out << "  (" << s.value("source", "") << ")";
    out << "\n";
  }
  for (const auto& a : props[kAssertions]) {
    out << "  assert " << a.value("condition", "");
    if (!a.value("source", "").empty()) out << "  (" << a.value("source", "") << ")";
    out << "\n";
  }
  for (const auto& o : props[kOutputs]) {
    if (o.value("kind", "") == "user_output") continue;
    out << "  output updates " << o.value("target", "") << " (" << o.value("kind", "") << ")\n";
  }
  return out.str();
}

}  // namespace xport::onnx
