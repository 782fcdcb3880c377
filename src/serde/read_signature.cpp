// A PT2 archive's graph signature, input contract and root call signature.

#include <algorithm>
#include <set>

#include "serde/program_reader.h"
#include "serde/pt2_format.h"
#include "xport/core/error.h"

namespace xport::serde {

GraphSignature SignatureReader::read_signature(const Field& sig) {
  GraphSignature out;
  const std::vector<const ir::Node*> placeholders = graph_.placeholders();
  const Field inputs = sig["input_specs"];
  if (inputs.size() != placeholders.size() + constant_inputs_.size()) {
    inputs.fail(std::to_string(inputs.size()) + " input specs for " +
                std::to_string(placeholders.size() + constant_inputs_.size()) +
                " graph inputs");
  }
  for (size_t i = 0, p = 0; i < inputs.size(); ++i) {
    auto [k, s] = inputs.at(i).to_union();
    if (auto it = constant_inputs_.find(i); it != constant_inputs_.end()) {
      if (k != "constant_input")
        s.fail("graph input " + std::to_string(i) + " is a constant, but its spec is " + k);
      it->second.name = s["name"].to_string();
      user_order_.push_back(it->second);
      continue;
    }
    InputSpec spec;
    Field arg = s["arg"];
    if (k == "user_input") {
      spec.kind = InputSpec::Kind::UserInput;
      user_order_.push_back(std::nullopt);
      auto [ak, t] = arg.to_union();
      if (ak != "as_tensor") t.fail("user input of kind " + ak + "; xport programs take tensors");
      arg = t;
    } else if (k == "parameter") {
      spec.kind = InputSpec::Kind::Parameter;
      spec.target = s["parameter_name"].to_string();
    } else if (k == "buffer") {
      spec.kind = InputSpec::Kind::Buffer;
      spec.target = s["buffer_name"].to_string();
      spec.persistent = s["persistent"].to_bool();
    } else if (k == "tensor_constant") {
      spec.kind = InputSpec::Kind::Constant;
      spec.target = s["tensor_constant_name"].to_string();
    } else {
      s.fail("input spec kind '" + k +
             "' is not supported by xport (it reads user_input, parameter, buffer, "
             "tensor_constant, constant_input)");
    }
    spec.name = arg["name"].to_string();
    if (spec.name != placeholders[p]->name()) {
      arg["name"].fail("names '" + spec.name + "', but graph input " + std::to_string(i) +
                       " is '" + placeholders[p]->name() + "'");
    }
    ++p;
    out.inputs.push_back(std::move(spec));
  }
  const Field outputs = sig["output_specs"];
  const std::vector<ir::Argument>& results = graph_.output()->args();
  if (outputs.size() != results.size()) {
    outputs.fail(std::to_string(outputs.size()) + " output specs for " +
                 std::to_string(results.size()) + " graph outputs");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto [k, s] = outputs.at(i).to_union();
    OutputSpec spec;
    spec.name = std::get<ir::ValueRef>(results[i].value).node->name();
    if (k == "user_output") {
      spec.kind = OutputSpec::Kind::UserOutput;
    } else if (k == "buffer_mutation") {
      spec.kind = OutputSpec::Kind::BufferMutation;
      spec.target = s["buffer_name"].to_string();
      if (std::none_of(out.inputs.begin(), out.inputs.end(), [&](const InputSpec& in) {
            return in.kind == InputSpec::Kind::Buffer && in.target == spec.target;
          })) {
        s["buffer_name"].fail("names buffer '" + spec.target + "', which no input spec lists");
      }
    } else if (k == "user_input_mutation") {
      spec.kind = OutputSpec::Kind::UserInputMutation;
      spec.target = s["user_input_name"].to_string();
      if (std::none_of(out.inputs.begin(), out.inputs.end(), [&](const InputSpec& in) {
            return in.kind == InputSpec::Kind::UserInput && in.name == spec.target;
          })) {
        s["user_input_name"].fail("names user input '" + spec.target +
                                  "', which no input spec lists");
      }
    } else {
      s.fail("output spec kind '" + k +
             "' is not supported by xport (it reads user_output, buffer_mutation and "
             "user_input_mutation)");
    }
    out.outputs.push_back(std::move(spec));
  }
  return out;
}

InputContract SignatureReader::contract_entry(const Field& c) {
  InputContract out;
  const std::string& kind = c["kind"].to_string();
  out.name = c["name"].to_string();
  if (kind == "tensor") {
    out.kind = InputContract::Kind::Tensor;
    out.dtype = SymbolTable::dtype(c["dtype"]);
    out.sizes = symbols_.sym_int_list(c["sizes"]);
  } else if (kind == "tensor_list") {
    out.kind = InputContract::Kind::TensorList;
    const Field elements = c["elements"];
    for (size_t i = 0; i < elements.size(); ++i) {
      out.elements.push_back(contract_entry(elements.at(i)));
      if (out.elements.back().kind != InputContract::Kind::Tensor)
        elements.at(i).fail("list elements must be tensors");
    }
  } else if (kind == "int" || kind == "bool") {
    out.kind = kind == "int" ? InputContract::Kind::Int : InputContract::Kind::Bool;
    out.int_value = c["value"].to_int();
  } else if (kind == "float") {
    out.kind = InputContract::Kind::Float;
    out.float_value = c["value"].to_double();
  } else {
    c["kind"].fail("unknown input kind '" + kind + "'");
  }
  return out;
}

// The root module's entry of module_call_graph (fqn ""): its pytree specs and argument names.
void SignatureReader::read_call_signature(const Field& module, GraphSignature& graph_sig) {
  const auto calls = module.optional("module_call_graph");
  if (!calls) return;
  for (size_t i = 0; i < calls->size(); ++i) {
    const Field call = calls->at(i);
    if (!call["fqn"].to_string().empty()) continue;
    const auto sig = call.optional("signature");
    if (!sig) return;
    info_.in_spec = (*sig)["in_spec"].to_string();
    info_.out_spec = (*sig)["out_spec"].to_string();
    // treespec_dumps' text: [protocol, {"type": null, ...}] for a lone tensor.
    const Json out = Json::parse(info_.out_spec, nullptr, /*allow_exceptions=*/false);
    if (out.is_array() && out.size() == 2 && out[1].is_object() && out[1].contains("type") &&
        out[1]["type"].is_null()) {
      graph_sig.returns = GraphSignature::Returns::Single;
    }
    if (const auto names = sig->optional("forward_arg_names")) {
      for (size_t k = 0; k < names->size(); ++k) {
        info_.forward_arg_names.push_back(names->at(k).to_string());
      }
    }
    return;
  }
}

void SignatureReader::read_contract(const Field& module, const GraphSignature& sig,
                   std::vector<InputContract>& contract, std::vector<SymbolSpec>& symbols) {
  std::vector<const ir::Node*> user;
  for (size_t i = 0; i < sig.inputs.size(); ++i) {
    if (sig.inputs[i].kind == InputSpec::Kind::UserInput)
      user.push_back(graph_.placeholders()[i]);
  }
  const auto metadata = module.optional("metadata");
  const auto contract_text = metadata ? metadata->optional(kContractKey) : std::nullopt;
  const auto symbols_text = metadata ? metadata->optional(kSymbolsKey) : std::nullopt;
  info_.written_by_xport = contract_text && symbols_text;
  if (info_.written_by_xport) {
    const Json c = nested_json(*contract_text);
    const Field cf(c, contract_text->path(), what_ + ": " + kModelPath);
    for (size_t i = 0; i < cf.size(); ++i) contract.push_back(contract_entry(cf.at(i)));
    const Json s = nested_json(*symbols_text);
    const Field sf(s, symbols_text->path(), what_ + ": " + kModelPath);
    for (size_t i = 0; i < sf.size(); ++i) {
      const Field e = sf.at(i);
      const auto unbacked = e.optional("unbacked");
      SymbolSpec spec{e["name"].to_string(), e["source"].to_string(),
                      e["dim_name"].to_string(), {}, unbacked && unbacked->to_bool()};
      auto it = symbols_.ranges.find(spec.name);
      if (it == symbols_.ranges.end())
        e["name"].fail("symbol '" + spec.name + "' has no entry in range_constraints");
      spec.range = it->second;
      for (const SymbolSpec& other : symbols) {
        if (other.name == spec.name)
          e["name"].fail("symbol '" + spec.name + "' is described twice");
      }
      symbols.push_back(std::move(spec));
    }
    if (symbols.size() != symbols_.ranges.size()) {
      sf.fail(std::to_string(symbols.size()) + " symbols described for " +
              std::to_string(symbols_.ranges.size()) + " range constraints");
    }
  } else {
    // Written by PyTorch: each user input is a tensor input as its graph input says, or a
    // constant input, and each symbol is named after the first input dim that is exactly
    // that symbol.
    size_t next = 0;
    for (const std::optional<InputContract>& constant : user_order_) {
      if (constant) {
        contract.push_back(*constant);
        continue;
      }
      const ir::Node* p = user[next++];
      InputContract c;
      c.name = p->name();
      c.dtype = p->outputs()[0].dtype;
      c.sizes = p->outputs()[0].sizes;
      contract.push_back(std::move(c));
    }
    for (const auto& [name, range] : symbols_.ranges) {
      SymbolSpec spec{name, "", name, range, false};
      for (const InputContract& c : contract) {
        for (size_t d = 0; d < c.sizes.size() && spec.source.empty(); ++d) {
          if (c.sizes[d]->kind() == sym::ExprKind::Symbol && c.sizes[d]->name() == name) {
            spec.source = c.name + ".size(" + std::to_string(d) + ")";
          }
        }
      }
      // A symbol in no input's sizes is defined by a node when the program runs (u0 of item()).
      spec.unbacked = !input_symbols_.count(sym::symbol(name));
      if (spec.unbacked) spec.dim_name.clear();
      if (spec.source.empty()) spec.source = spec.unbacked ? "a value of the data" : name;
      symbols.push_back(std::move(spec));
    }
  }
  check_contract(contract, user, symbols);
}

Json SignatureReader::nested_json(const Field& text) {
  try {
    return Json::parse(text.to_string());
  } catch (const Json::exception& e) {
    text.fail(std::string("invalid JSON: ") + e.what());
  }
}

// The contract's tensors are the graph's user inputs, in order, with the same dtypes and
// ranks; every symbol is a dim of some input, so run() can bind it.
void SignatureReader::check_contract(const std::vector<InputContract>& contract,
                    const std::vector<const ir::Node*>& user,
                    const std::vector<SymbolSpec>& symbols) {
  std::vector<const InputContract*> tensors;
  for (const InputContract& c : contract) {
    if (c.kind == InputContract::Kind::Tensor) tensors.push_back(&c);
    for (const InputContract& e : c.elements) tensors.push_back(&e);
  }
  XPORT_CHECK(tensors.size() == user.size(), InvalidArchive, what_, ": ", kContractKey,
              " describes ", tensors.size(), " tensor inputs, but the graph has ", user.size());
  std::set<std::string> bindable;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ir::TensorSpec& spec = user[i]->outputs()[0];
    XPORT_CHECK(tensors[i]->dtype == spec.dtype && tensors[i]->sizes.size() == spec.sizes.size(),
                InvalidArchive, what_, ": ", kContractKey, ": input ", tensors[i]->name,
                " does not match graph input ", user[i]->name(), " (", spec.str(), ")");
    for (sym::ExprPtr s : tensors[i]->sizes) {
      for (sym::ExprPtr f : sym::free_symbols(s)) bindable.insert(f->name());
    }
  }
  for (const SymbolSpec& s : symbols) {
    XPORT_CHECK(s.unbacked || bindable.count(s.name), InvalidArchive, what_, ": symbol ", s.name,
                " is not a dim of any input, so no input can give its value");
  }
}

}  // namespace xport::serde
