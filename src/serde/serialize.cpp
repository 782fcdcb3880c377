// ExportedProgram -> torch.export's serialized schema (major 8) as JSON, plus the weight and
// constant payloads. Field order follows the schema's dataclasses, so output is deterministic.
// The graph is written by GraphWriter (graph_writer.h); values by write_values.h.

#include <nlohmann/json.hpp>

#include <map>
#include <utility>
#include <vector>

#include "serde/graph_writer.h"
#include "serde/pt2_format.h"
#include "serde/serialize.h"
#include "serde/write_values.h"
#include "xport/core/error.h"

namespace xport::serde {
namespace {

using Json = nlohmann::ordered_json;

Json contract_json(const InputContract& c) {
  Json j;
  j["kind"] = to_string(c.kind);
  j["name"] = c.name;
  switch (c.kind) {
    case InputContract::Kind::Tensor: {
      j["dtype"] = scalar_type_id(c.dtype);
      Json sizes = Json::array();
      for (sym::ExprPtr e : c.sizes) sizes.push_back(sym_int(e));
      j["sizes"] = std::move(sizes);
      break;
    }
    case InputContract::Kind::TensorList: {
      Json elements = Json::array();
      for (const InputContract& e : c.elements) elements.push_back(contract_json(e));
      j["elements"] = std::move(elements);
      break;
    }
    case InputContract::Kind::Int:
    case InputContract::Kind::Bool:
      j["value"] = c.int_value;
      break;
    case InputContract::Kind::Float:
      j["value"] = float_value(c.float_value);
      break;
  }
  return j;
}

// A specialised plain input as a graph input and ConstantValue (the two unions share these).
Json constant_value(const InputContract& c) {
  switch (c.kind) {
    case InputContract::Kind::Int:
      return Json{{"as_int", c.int_value}};
    case InputContract::Kind::Bool:
      return Json{{"as_bool", c.int_value != 0}};
    case InputContract::Kind::Float:
      return Json{{"as_float", float_value(c.float_value)}};
    default:
      XPORT_FAIL(Internal, "save: input ", c.name, " is not a plain value");
  }
}

// torch.utils._pytree's TreeSpec as treespec_dumps writes it: a leaf, or a container type with
// its context (JSON text: "null" for tuples and lists, the list of keys for dicts) and children.
Json leaf_spec() {
  return Json{{"type", nullptr}, {"context", nullptr}, {"children_spec", Json::array()}};
}

Json container_spec(const char* type, const char* context, Json children) {
  return Json{{"type", type}, {"context", context}, {"children_spec", std::move(children)}};
}

// The user inputs in call order, as ep.module() takes them: the contract's inputs as positional
// arguments, a tensor list as a list. A plain value the program was specialised to is a graph
// input too (a constant_input, as torch.export writes it), so that ep.module() takes the
// arguments xport's run() takes; it goes before the next user tensor input.
struct CallInputs {
  Json args_spec = Json::array();  // a TreeSpec per input
  Json names = Json::array();
  std::vector<DType> dtypes;                                            // of each user tensor
  std::vector<std::vector<const InputContract*>> constants_before{1};  // [i]: before tensor i

  explicit CallInputs(const std::vector<InputContract>& contract) {
    for (const InputContract& c : contract) {
      names.push_back(c.name);
      if (c.kind == InputContract::Kind::Tensor) {
        args_spec.push_back(leaf_spec());
        dtypes.push_back(c.dtype);
        constants_before.emplace_back();
      } else if (c.kind == InputContract::Kind::TensorList) {
        Json elements = Json::array();
        for (const InputContract& e : c.elements) {
          elements.push_back(leaf_spec());
          dtypes.push_back(e.dtype);
          constants_before.emplace_back();
        }
        args_spec.push_back(container_spec("builtins.list", "null", std::move(elements)));
      } else {
        args_spec.push_back(leaf_spec());
        constants_before.back().push_back(&c);
      }
    }
  }

  // The root module's ModuleCallSignature. Its out_spec is a tuple of the user outputs, or one
  // leaf where the program's function returned a tensor alone (GraphSignature::Returns).
  Json signature(size_t outputs, GraphSignature::Returns returns) const {
    const Json in_spec = container_spec(
        "builtins.tuple", "null",
        Json::array({container_spec("builtins.tuple", "null", args_spec),
                     container_spec("builtins.dict", "[]", Json::array())}));
    Json out_spec = container_spec("builtins.tuple", "null", Json::array());
    for (size_t i = 0; i < outputs; ++i) out_spec["children_spec"].push_back(leaf_spec());
    if (returns == GraphSignature::Returns::Single && outputs == 1) out_spec = leaf_spec();
    Json sig;
    sig["inputs"] = Json::array();
    sig["outputs"] = Json::array();
    sig["in_spec"] = Json::array({kTreeSpecProtocol, in_spec}).dump();
    sig["out_spec"] = Json::array({kTreeSpecProtocol, out_spec}).dump();
    sig["forward_arg_names"] = names;
    return sig;
  }
};

Json bound(int64_t v, int64_t infinity) { return v == infinity ? Json(nullptr) : Json(v); }

// Payloads: each distinct storage once, in signature order, tensors as views of it.
class PayloadWriter {
 public:
  PayloadWriter(const char* dir, const char* prefix) : dir_(dir), prefix_(prefix) {}
  Json config = Json{{"config", Json::object()}};
  std::vector<Payload> payloads;

  void add(const std::string& fqn, const Tensor& t, bool is_param) {
    auto [it, inserted] = names_.emplace(t.storage().get(), "");
    if (inserted) {
      it->second = prefix_ + std::to_string(names_.size() - 1);
      payloads.push_back({dir_ + it->second, t.storage()});
    }
    Json meta = tensor_meta(t);
    // As PyTorch writes an nn.Parameter: torch.export.load gives it back trainable.
    meta["requires_grad"] = is_param && is_floating(t.dtype());
    config["config"][fqn] = Json{{"path_name", it->second},
                                 {"is_param", is_param},
                                 {"use_pickle", false},
                                 {"tensor_meta", std::move(meta)}};
  }

 private:
  std::string dir_, prefix_;
  std::map<const Storage*, std::string> names_;
};

// The output specs in graph output order, counting the user outputs.
Json output_specs_json(const std::vector<OutputSpec>& outputs, const Json& graph_outputs,
                       size_t& user_outputs) {
  XPORT_CHECK(outputs.size() == graph_outputs.size(), Internal, "save: ", outputs.size(),
              " output specs for ", graph_outputs.size(), " graph outputs");
  Json specs = Json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Json& out = graph_outputs[i];
    switch (outputs[i].kind) {
      case OutputSpec::Kind::UserOutput:
        specs.push_back(Json{{"user_output", Json{{"arg", out}}}});
        ++user_outputs;
        break;
      case OutputSpec::Kind::BufferMutation:
        specs.push_back(Json{{"buffer_mutation", Json{{"arg", out.at("as_tensor")},
                                                      {"buffer_name", outputs[i].target}}}});
        break;
      case OutputSpec::Kind::UserInputMutation:
        specs.push_back(
            Json{{"user_input_mutation",
                  Json{{"arg", out.at("as_tensor")}, {"user_input_name", outputs[i].target}}}});
        break;
    }
  }
  return specs;
}

// xport's description of the symbols (metadata) and PyTorch's range_constraints.
std::pair<Json, Json> symbols_json(const std::vector<SymbolSpec>& specs) {
  Json symbols = Json::array();
  Json ranges = Json::object();
  for (const SymbolSpec& s : specs) {
    symbols.push_back(Json{{"name", s.name},
                           {"source", s.source},
                           {"dim_name", s.dim_name},
                           {"unbacked", s.unbacked}});
    ranges[s.name] = Json{{"min_val", bound(s.range.lo, sym::Range::kNegInf)},
                          {"max_val", bound(s.range.hi, sym::Range::kPosInf)}};
  }
  return {std::move(symbols), std::move(ranges)};
}

// The graph's inputs and their specs, in placeholder order, with the plain values the program
// was specialised to placed before the next user tensor (CallInputs); the weights and constants
// go to their payloads.
std::pair<Json, Json> inputs_json(const ExportedProgram& program, const CallInputs& call,
                                  GraphWriter& writer, PayloadWriter& weights,
                                  PayloadWriter& constants) {
  Json graph_inputs = Json::array();
  Json input_specs = Json::array();
  auto add_constants = [&](size_t i) {
    for (const InputContract* c : call.constants_before[i]) {
      const Json value = constant_value(*c);
      graph_inputs.push_back(value);
      input_specs.push_back(
          Json{{"constant_input", Json{{"name", writer.unique(c->name)}, {"value", value}}}});
    }
  };
  size_t tensors = 0;  // user tensor inputs so far
  for (const InputSpec& in : program.signature().inputs) {
    const Json arg = Json{{"name", in.name}};
    switch (in.kind) {
      case InputSpec::Kind::Parameter:
        input_specs.push_back(
            Json{{"parameter", Json{{"arg", arg}, {"parameter_name", in.target}}}});
        weights.add(in.target, program.state().at(in.target), true);
        break;
      case InputSpec::Kind::Buffer:
        input_specs.push_back(
            Json{{"buffer",
                  Json{{"arg", arg}, {"buffer_name", in.target}, {"persistent", in.persistent}}}});
        (in.persistent ? weights : constants).add(in.target, program.state().at(in.target), false);
        break;
      case InputSpec::Kind::Constant:
        input_specs.push_back(
            Json{{"tensor_constant", Json{{"arg", arg}, {"tensor_constant_name", in.target}}}});
        constants.add(in.target, program.state().at(in.target), false);
        break;
      case InputSpec::Kind::UserInput:
        XPORT_CHECK(tensors + 1 < call.constants_before.size(), Internal, "save: the graph has ",
                    "more user inputs than the contract's ", call.constants_before.size() - 1,
                    " tensors");
        add_constants(tensors);
        writer.assert_dtype(in.name, call.dtypes[tensors++]);
        input_specs.push_back(Json{{"user_input", Json{{"arg", Json{{"as_tensor", arg}}}}}});
        break;
    }
    graph_inputs.push_back(Json{{"as_tensor", arg}});
  }
  XPORT_CHECK(tensors + 1 == call.constants_before.size(), Internal, "save: the contract ",
              "describes ", call.constants_before.size() - 1, " tensor inputs, the graph has ",
              tensors);
  add_constants(tensors);
  return {std::move(graph_inputs), std::move(input_specs)};
}

}  // namespace

SerializedProgram serialize(const ExportedProgram& program) {
  GraphWriter writer(program.graph());
  const CallInputs call(program.contract());
  PayloadWriter weights(kWeightsDir, kWeightPrefix);
  PayloadWriter constants(kConstantsDir, kConstantPrefix);
  auto [graph_inputs, input_specs] = inputs_json(program, call, writer, weights, constants);

  for (const SymbolSpec& s : program.symbols()) {
    if (!s.unbacked) writer.assert_range(s);  // the graph asserts an unbacked symbol's facts
  }
  Json graph = writer.graph_json(std::move(graph_inputs));
  size_t user_outputs = 0;
  Json output_specs = output_specs_json(program.signature().outputs, graph["outputs"],
                                        user_outputs);
  Json call_signature = call.signature(user_outputs, program.signature().returns);

  Json contract = Json::array();
  for (const InputContract& c : program.contract()) contract.push_back(contract_json(c));
  auto [symbols, ranges] = symbols_json(program.symbols());
  Json module;
  module["graph"] = std::move(graph);
  module["signature"] =
      Json{{"input_specs", std::move(input_specs)}, {"output_specs", std::move(output_specs)}};
  module["module_call_graph"] =
      Json::array({Json{{"fqn", ""}, {"signature", std::move(call_signature)}}});
  module["metadata"] = Json{{kContractKey, contract.dump()}, {kSymbolsKey, symbols.dump()}};
  module["treespec_namedtuple_fields"] = Json::object();

  Json ep;
  ep["graph_module"] = std::move(module);
  ep["opset_version"] = Json{{"aten", 10}};
  ep["range_constraints"] = std::move(ranges);
  ep["schema_version"] = Json{{"major", kSchemaMajor}, {"minor", kSchemaMinor}};
  ep["verifiers"] = Json::array();
  ep["torch_version"] = "xport 0.1";
  ep["guards_code"] = Json::array();

  SerializedProgram out;
  out.model_json = ep.dump();
  out.weights_config_json = weights.config.dump();
  out.constants_config_json = constants.config.dump();
  out.payloads = std::move(weights.payloads);
  for (Payload& p : constants.payloads) out.payloads.push_back(std::move(p));
  return out;
}

}  // namespace xport::serde

