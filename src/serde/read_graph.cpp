// A PT2 archive's graph: its inputs, op calls, arguments, subgraphs and outputs.

#include <algorithm>
#include <optional>

#include "serde/program_reader.h"
#include "serde/pt2_format.h"
#include "xport/core/error.h"

namespace xport::serde {

void GraphReader::read_graph(const Field& g) {
  const Field inputs = g["inputs"];
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto [k, t] = inputs.at(i).to_union();
    if (k == "as_int" || k == "as_bool" || k == "as_float") {
      InputContract c;
      c.kind = k == "as_int"    ? InputContract::Kind::Int
               : k == "as_bool" ? InputContract::Kind::Bool
                                : InputContract::Kind::Float;
      if (k == "as_float") {
        c.float_value = t.to_double();
      } else {
        c.int_value = k == "as_int" ? t.to_int() : t.to_bool();
      }
      constant_inputs[i] = std::move(c);
      continue;
    }
    if (k != "as_tensor") {
      t.fail("graph input of kind " + k +
             "; xport graphs take tensors and int, bool and float constants");
    }
    const Field name = t["name"];
    const ir::TensorSpec& spec = symbols_.spec_of(name);
    ir::Node* p;
    try {
      p = graph.add_placeholder(name.to_string(), spec);
    } catch (const Error& e) {
      name.fail(e.what());
    }
    define(name, p->out());
    for (sym::ExprPtr size : spec.sizes) {
      for (sym::ExprPtr s : sym::free_symbols(size)) input_symbols.insert(s);
    }
  }
  const Field nodes = g["nodes"];
  for (size_t i = 0; i < nodes.size(); ++i) read_node(nodes.at(i));
  const Field outputs = g["outputs"];
  std::vector<ir::Argument> results;
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto [k, t] = outputs.at(i).to_union();
    if (k == "as_sym_int" || k == "as_int") {
      // A size the program returns (PyTorch's scalar_output): an int64 0-dim tensor here.
      const sym::ExprPtr value = k == "as_int" ? sym::integer(t.to_int()) : sym_int_argument(t);
      const ir::Node* node = graph.add_call(
          find_op("aten::scalar_tensor"), {value, DType::Int64, {}, {}, {}},
          {ir::TensorSpec::contiguous(DType::Int64, {})});
      results.emplace_back(node->out());
      continue;
    }
    if (k != "as_tensor")
      t.fail("graph output of kind " + k + "; xport graphs return tensors and sizes only");
    results.emplace_back(value_ref(t));
  }
  graph.set_output(std::move(results));
}

void GraphReader::read_node(const Field& n) {
  if (read_sym_relation(n) || read_assert(n) || read_item(n) || read_grad_mode_wrapper(n))
    return;
  const Field outputs = n["outputs"];
  // PyTorch's sym_size/arithmetic nodes produce SymInts whose expressions sym_int_values
  // already holds: their uses read the expression, so the node itself is not needed.
  bool only_known_sym_ints = outputs.size() > 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto [k, v] = outputs.at(i).to_union();
    only_known_sym_ints = only_known_sym_ints && k == "as_sym_int" && v.json().is_object() &&
                          v.json().contains("as_name") && v.json()["as_name"].is_string() &&
                          symbols_.sym_values.count(v.json()["as_name"].get<std::string>());
  }
  if (only_known_sym_ints) return;

  // PyTorch's training IR asserts metadata that the archive also records
  // (aten._assert_tensor_metadata, an op without outputs). The assertion is decided here, at
  // load, against the recorded metadata, rather than kept as an op that does nothing at run time.
  if (n["target"].to_string() == "torch.ops.aten._assert_tensor_metadata.default") {
    check_metadata_assertion(n["inputs"]);
    return;
  }
  const OpDef& op = scalar_overload_for_numbers(op_of(n["target"]), n["inputs"]);
  std::vector<ir::Argument> args = call_arguments(op, n["inputs"]);
  const NodeOutputs out = node_outputs(op, outputs);
  std::string node_name;
  if (auto given = n.optional("name")) {
    node_name = scope_ + given->to_string();
  } else if (!op.parsed.returns_list && out.names.size() == 1 && out.names[0]) {
    node_name = scope_ + out.names[0]->to_string();
  } else {
    node_name = op.parsed.name;
  }
  ir::NodeMeta meta = n.optional("metadata") ? node_meta(n["metadata"]) : ir::NodeMeta{};
  ir::Node* node;
  try {
    materialise_numbers(op, node_name, args, meta);
    node = n.optional("name") || out.names.size() == 1
               ? graph.add_named_call(node_name, op, std::move(args), output_specs(out),
                                       std::move(meta))
               : graph.add_call(op, std::move(args), output_specs(out), std::move(meta));
  } catch (const Error& e) {
    n.fail(e.what());
  }
  for (size_t i = 0; i < out.names.size(); ++i) {
    if (out.names[i]) define(*out.names[i], node->out(static_cast<int>(i)));
  }
  bind_new_symbols(node);
}

// Every argument of the op's schema, in its order: the node's by name (a higher-order op's by
// position), defaults for the rest.
std::vector<ir::Argument> GraphReader::call_arguments(const OpDef& op, const Field& inputs) {
  const Schema& schema = op.parsed;
  std::vector<std::optional<ir::Argument>> args(schema.arguments.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Field input = inputs.at(i);
    const std::string& name = input["name"].to_string();
    size_t index = 0;
    if (op.higher_order) {
      // Positional, without names.
      index = i;
      if (index >= schema.arguments.size())
        input.fail(schema.qualified_name() + " takes " +
                   std::to_string(schema.arguments.size()) + " arguments");
    }
    while (!op.higher_order && index < schema.arguments.size() &&
           schema.arguments[index].name != name)
      ++index;
    if (index == schema.arguments.size())
      input["name"].fail("op " + schema.qualified_name() + " has no argument '" + name + "'");
    if (args[index]) input["name"].fail("argument '" + name + "' is given twice");
    args[index] = argument(input["arg"]);
    // A device the schema requires (to.device) stays the CPU it was read as, by name.
    const ArgType& type = schema.arguments[index].type;
    if (type.base == BaseType::Device && !type.optional && args[index]->is_none())
      args[index] = ir::Argument("cpu");
  }
  std::vector<ir::Argument> full;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i]) {
      full.push_back(std::move(*args[i]));
    } else if (schema.arguments[i].default_value) {
      full.push_back(default_argument(*schema.arguments[i].default_value, inputs));
    } else {
      inputs.fail("argument '" + schema.arguments[i].name + "' of " + schema.qualified_name() +
                  " is missing and has no default");
    }
  }
  return full;
}

// The names of a node's outputs: a list for `-> Tensor[]`, else one tensor (or SymFloat) per
// return; a higher-order op's, one tensor each.
GraphReader::NodeOutputs GraphReader::node_outputs(const OpDef& op, const Field& outputs) {
  const Schema& schema = op.parsed;
  NodeOutputs out;
  if (schema.returns_list && !op.higher_order) {
    if (outputs.size() != 1)
      outputs.fail(schema.qualified_name() + " returns a list: expected one as_tensors output");
    auto [k, list] = outputs.at(0).to_union();
    if (k != "as_tensors") list.fail("expected as_tensors for a list return, found " + k);
    for (size_t i = 0; i < list.size(); ++i) out.names.push_back(list.at(i)["name"]);
    return out;
  }
  if (!op.higher_order && outputs.size() != schema.returns.size()) {
    outputs.fail(std::to_string(outputs.size()) + " outputs, but " + schema.qualified_name() +
                 " returns " + std::to_string(schema.returns.size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto [k, t] = outputs.at(i).to_union();
    if (!op.higher_order && k == "as_sym_float") {  // a float the graph computes, as float64
      out.names.push_back(t["as_name"]);
      out.numbers.insert(out.names.size() - 1);
    } else if (!op.higher_order && k == "as_none") {  // an unrequested gradient of a backward op
      out.names.emplace_back(std::nullopt);
    } else {
      if (k != "as_tensor") t.fail("expected an as_tensor output, found " + k);
      out.names.push_back(t["name"]);
    }
  }
  return out;
}

std::vector<ir::TensorSpec> GraphReader::output_specs(const NodeOutputs& out) {
  std::vector<ir::TensorSpec> specs;
  for (size_t i = 0; i < out.names.size(); ++i) {
    if (!out.names[i]) {
      specs.push_back(ir::TensorSpec::none_result());
    } else if (out.numbers.count(i)) {
      specs.push_back(ir::TensorSpec::contiguous(DType::Float64, {}));
    } else {
      specs.push_back(symbols_.spec_of(*out.names[i]));
    }
  }
  return specs;
}

// An output dim that is a symbol no input and no earlier node defines is given its value by
// this node (nonzero's row count, an unbacked symbol).
void GraphReader::bind_new_symbols(ir::Node* node) {
  std::vector<ir::UnbackedBinding> bindings;
  for (size_t o = 0; o < node->outputs().size(); ++o) {
    const auto& sizes = node->outputs()[o].sizes;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d]->kind() != sym::ExprKind::Symbol || input_symbols.count(sizes[d]) ||
          !bound_symbols_.insert(sizes[d]).second)
        continue;
      bindings.push_back({sizes[d], static_cast<int>(o), static_cast<int>(d)});
    }
  }
  if (!bindings.empty()) graph.set_unbacked_bindings(node, std::move(bindings));
}

ir::ValueRef GraphReader::value_ref(const Field& tensor_arg) {
  const Field name = tensor_arg["name"];
  auto it = values_.find(name.to_string());
  if (it == values_.end()) {
    name.fail("refers to value '" + name.to_string() +
              "', which no earlier node or input defines");
  }
  return it->second;
}

void GraphReader::define(const Field& name_field, ir::ValueRef ref) {
  if (!values_.emplace(name_field.to_string(), ref).second) {
    name_field.fail("value '" + name_field.to_string() + "' is defined twice");
  }
}

// A SymFloat argument: a float, or the name of a float the graph computes (item_float()'s
// value, `_operator.mul`'s result).
ir::Argument GraphReader::sym_float_argument(const Field& f) {
  auto [kind, v] = f.to_union();
  if (kind == "as_float") return v.to_double();
  if (kind != "as_name") v.fail("unknown SymFloatArgument kind '" + kind + "'");
  auto it = values_.find(v.to_string());
  if (it == values_.end())
    v.fail("refers to float '" + v.to_string() + "', which no earlier node defines");
  return it->second;
}

sym::ExprPtr GraphReader::sym_int_argument(const Field& f) {
  auto [kind, v] = f.to_union();
  if (kind == "as_int") return sym::integer(v.to_int());
  if (kind != "as_name") v.fail("unknown SymIntArgument kind '" + kind + "'");
  auto it = symbols_.sym_values.find(v.to_string());
  if (it == symbols_.sym_values.end())
    v.fail("'" + v.to_string() + "' has no entry in sym_int_values");
  return it->second;
}

ir::Argument GraphReader::argument(const Field& f) {
  auto [kind, v] = f.to_union();
  // `v` is captured by name: clang < 16 cannot capture a structured binding implicitly.
  auto list = [&, &v = v](auto element) {
    std::vector<ir::Argument> out;
    const size_t n = v.size();
    for (size_t i = 0; i < n; ++i) out.push_back(element(v.at(i)));
    return ir::Argument(std::move(out));
  };
  if (kind == "as_none") return {};
  if (kind == "as_tensor") return value_ref(v);
  if (kind == "as_tensors")
    return list([&](const Field& e) { return ir::Argument(value_ref(e)); });
  if (kind == "as_optional_tensors" || kind == "as_optional_tensor") {
    auto one = [&](const Field& e) -> ir::Argument {
      auto [k, x] = e.to_union();
      if (k == "as_none") return {};
      if (k == "as_tensor") return value_ref(x);
      x.fail("unknown OptionalTensorArgument kind '" + k + "'");
    };
    return kind == "as_optional_tensor" ? one(v) : list(one);
  }
  if (kind == "as_int") return sym::integer(v.to_int());
  if (kind == "as_ints")
    return list([](const Field& e) { return ir::Argument(sym::integer(e.to_int())); });
  if (kind == "as_sym_int") return sym_int_argument(v);
  if (kind == "as_sym_ints")
    return list([&](const Field& e) { return ir::Argument(sym_int_argument(e)); });
  if (kind == "as_float") return v.to_double();
  if (kind == "as_sym_float") return sym_float_argument(v);
  if (kind == "as_floats")
    return list([](const Field& e) { return ir::Argument(e.to_double()); });
  if (kind == "as_bool") return v.to_bool();
  if (kind == "as_bools") return list([](const Field& e) { return ir::Argument(e.to_bool()); });
  if (kind == "as_string") return v.to_string();
  if (kind == "as_strings")
    return list([](const Field& e) { return ir::Argument(e.to_string()); });
  if (kind == "as_scalar_type") return SymbolTable::dtype(v);
  if (kind == "as_sym_bool") {
    auto [k, name] = v.to_union();
    if (k == "as_bool") return sym::boolean(name.to_bool());
    if (k != "as_name") name.fail("unknown SymBoolArgument kind '" + k + "'");
    auto it = sym_bools_.find(name.to_string());
    if (it == sym_bools_.end())
      name.fail("refers to '" + name.to_string() + "', which no earlier node defines");
    return it->second;
  }
  if (kind == "as_graph") return subgraph(v);
  // CPU-only, strided, contiguous: the defaults, which xport's graphs spell as None.
  if (kind == "as_device") {
    if (v["type"].to_string() != "cpu")
      v.fail("device '" + v["type"].to_string() + "'; xport runs on the CPU");
    return {};
  }
  if (kind == "as_layout") {
    if (v.to_int() != kLayoutStrided)
      v.fail("layout " + std::to_string(v.to_int()) + "; xport has strided tensors only");
    return {};
  }
  if (kind == "as_memory_format") {
    const int64_t m = v.to_int();
    if (m != 1 && m != 4)
      v.fail("memory format " + std::to_string(m) +
             "; xport supports contiguous_format (1) and preserve_format (4)");
    return std::string(m == 1 ? "contiguous_format" : "preserve_format");
  }
  v.fail("argument kind '" + kind + "' is not supported by xport");
}

ir::Argument GraphReader::default_argument(const Value& d, const Field& where) {
  if (d.is_none()) return {};
  if (d.is_bool()) return d.to_bool();
  if (d.is_int()) return sym::integer(d.to_int());
  if (d.is_double()) return d.to_double();
  if (d.is_string()) return d.to_string_value();
  if (d.is_dtype()) return d.to_dtype();
  if (d.is_int_list()) {
    std::vector<ir::Argument> out;
    for (const SymInt& s : d.to_sym_int_list())
      out.emplace_back(sym::integer(s.maybe_int().value_or(0)));
    return out;
  }
  if (d.is_double_list()) {
    std::vector<ir::Argument> out;
    for (double v : d.to_double_list()) out.emplace_back(v);
    return out;
  }
  if (d.is_bool_list()) {
    std::vector<ir::Argument> out;
    for (bool v : d.to_bool_list()) out.emplace_back(v);
    return out;
  }
  where.fail("a default of kind " + std::string(d.type_name()) + " cannot be filled in");
}

// A higher-order op's subgraph: its own values, names and SymInts, read with the reader's
// graph state set aside (symbols and ranges stay shared).
ir::SubgraphRef GraphReader::subgraph(const Field& f) {
  ir::SubgraphRef ref{f["name"].to_string(), std::make_shared<ir::Graph>()};
  if (++subgraph_depth_ > kMaxSubgraphDepth) {
    f.fail("subgraphs nest deeper than " + std::to_string(kMaxSubgraphDepth));
  }
  auto specs = std::move(symbols_.specs);
  auto values = std::move(values_);
  auto sym_values = symbols_.sym_values;  // the subgraph sees the enclosing graph's too
  auto sym_bools = sym_bools_;
  ir::Graph enclosing = std::move(graph);
  symbols_.specs = {};
  values_ = {};
  graph = ir::Graph();
  const Field g = f["graph"];
  symbols_.read_sym_values(g["sym_int_values"]);
  symbols_.read_tensor_values(g["tensor_values"]);
  read_graph(g);
  *ref.graph = std::move(graph);
  symbols_.specs = std::move(specs);
  values_ = std::move(values);
  symbols_.sym_values = std::move(sym_values);
  sym_bools_ = std::move(sym_bools);
  graph = std::move(enclosing);
  --subgraph_depth_;
  return ref;
}

}  // namespace xport::serde
